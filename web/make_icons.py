"""Draw the web app's icons (web/static/icon-192.png, icon-512.png, icon.svg): a rules page on the site's accent.

Run once when the design changes (``python -m web.make_icons``); the files are committed, served as static files
and named by the manifest (web/offline.py). Plain zlib and struct, no imaging library: the design is rectangles.
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

__all__ = ["SVG", "png", "main"]

ACCENT = (0x7A, 0x2E, 0x1D)
PAGE = (0xFF, 0xFD, 0xF8)
INK = (0x7A, 0x2E, 0x1D)
# In a 24-unit square: the page, then the lines of text on it (x, y, width, height); the rest is the accent.
_PAGE = (5, 3, 14, 18)
_LINES = ((7.5, 6.5, 9, 1.6), (7.5, 10, 9, 1.2), (7.5, 12.6, 7, 1.2), (7.5, 15.2, 8, 1.2))
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
       '<rect width="24" height="24" fill="#7a2e1d"/>'
       f'<rect x="{_PAGE[0]}" y="{_PAGE[1]}" width="{_PAGE[2]}" height="{_PAGE[3]}" rx="1.2" fill="#fffdf8"/>'
       + "".join(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#7a2e1d"/>' for x, y, w, h in _LINES)
       + "</svg>\n")


def _colour(x: float, y: float) -> tuple[int, int, int]:
    for lx, ly, lw, lh in _LINES:
        if lx <= x < lx + lw and ly <= y < ly + lh:
            return INK
    px, py, pw, ph = _PAGE
    return PAGE if px <= x < px + pw and py <= y < py + ph else ACCENT


def png(size: int) -> bytes:
    """The icon as a ``size`` x ``size`` RGB PNG (full bleed: it is "maskable", the page inside the safe zone)."""
    unit = 24 / size
    rows = b"".join(b"\x00" + bytes(c for x in range(size) for c in _colour((x + 0.5) * unit, (y + 0.5) * unit))
                    for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def main() -> None:
    static = Path(__file__).resolve().parent / "static"
    (static / "icon.svg").write_text(SVG, encoding="utf-8")
    for size in (192, 512):
        (static / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
