"""The cross-encoder's model, shipped as package data: model.onnx, tokenizer.json, manifest.json (what made it),
NOTICE and LICENSE (Apache-2.0). Written by ``kb train --cross`` (kb.cross.train); read by kb.cross."""
