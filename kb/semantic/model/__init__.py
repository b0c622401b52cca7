"""The semantic stage's model, shipped as package data: model.onnx, tokenizer.json, manifest.json (what made it),
bundled.npy/bundled.json (the bundled corpus's record vectors), NOTICE and LICENSE (Apache-2.0).
Written by ``kb train --semantic`` (kb.semantic.train); read by kb.semantic."""
