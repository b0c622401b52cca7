"""The style sheet and the script, under URLs that change with their content.

Served by Flask's static view they answered ``Cache-Control: no-cache``: every page a phone opened asked for both
again (two 304s, a round trip of 400 ms on a slow network before the first paint). Read once at start, each file
has a version (a hash of its bytes); pages link ``/static/style.css?v=<version>``, which answers
``Cache-Control: public, max-age=31536000, immutable``: a browser never asks again, and a changed file is a new
URL. Without the version, or with an old one, the file answers as before (``no-cache``: revalidate each time).
"""
from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, abort, current_app, request

from web.app import Response
from web.compress import MIN_SIZE, accepts_gzip, gzip_bytes, gzipped

__all__ = ["Asset", "assets", "load", "STATIC", "YEAR"]

STATIC = Path(__file__).resolve().parent / "static"
YEAR = 365 * 24 * 3600

assets = Blueprint("assets", __name__)


@dataclass(frozen=True)
class Asset:
    body: bytes
    gz: bytes
    version: str  # the first 12 hex digits of the body's SHA-256
    mimetype: str

    @classmethod
    def read(cls, path: Path) -> Asset:
        body = path.read_bytes()
        mimetype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return cls(body, gzip_bytes(body), hashlib.sha256(body).hexdigest()[:12], mimetype)


def load(folder: Path = STATIC) -> dict[str, Asset]:
    """Every file of ``folder`` by name, read now (a changed file is seen at the next start)."""
    return {path.name: Asset.read(path) for path in sorted(folder.iterdir()) if path.is_file()}


def asset_url(name: str) -> str:
    """``/static/<name>?v=<version>``: the URL pages link."""
    return f"/static/{name}?v={current_app.extensions['assets'][name].version}"


assets.add_app_template_global(asset_url)


@assets.get("/static/<path:name>")
def static(name: str):
    asset = current_app.extensions["assets"].get(name)
    if asset is None:
        abort(404)
    response = Response(asset.body, mimetype=asset.mimetype)
    zipped = len(asset.body) >= MIN_SIZE and accepts_gzip()
    # the gzipped bytes and the plain ones each with a validator of its own (RFC 9110 8.8.3): with one for both, a
    # shared cache revalidating its gzipped copy (no-cache: at every use) for a client without gzip was told 304
    response.set_etag(asset.version + ("-gzip" if zipped else ""), weak=True)
    if request.args.get("v") == asset.version:
        response.cache_control.public = True
        response.cache_control.max_age = YEAR
        response.cache_control.immutable = True
    else:
        response.cache_control.no_cache = True
    response.make_conditional(request)
    if response.status_code == 200 and zipped:
        gzipped(response, asset.gz)
    return response
