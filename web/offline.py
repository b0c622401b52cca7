"""The installable web app and its offline pack (docs/offline.md).

- ``/manifest.webmanifest``: the app's name, icons and colours.
- ``/sw.js``: the service worker (web/templates/sw.js), at the site's root so its scope is the whole site;
  ``Cache-Control: no-cache`` (a browser checks it at each visit: a new worker is seen at once).
- ``/offline/current``: which pack is current (build id, label, URL, sizes), ``no-cache``, a few hundred bytes.
- ``/offline/<build id>.json``: the build's pack (kb.offline), made once per build and kept on the opened build,
  gzipped once at the best level, ``immutable``: a build's pack never changes, a new build is a new URL. Another
  build's id is a 404 that names the current pack.
- ``/offline/shell``: the page the service worker answers when the network cannot; the page script fills it.
"""
from __future__ import annotations

import json
import re

from flask import Blueprint, current_app, render_template, request

from web.app import Response
from web.assets import YEAR, asset_url
from web.compress import accepts_gzip, gzipped

__all__ = ["offline", "MANIFEST", "ICONS"]

offline = Blueprint("offline", __name__)

THEME_LIGHT = "#7a2e1d"  # the accent of style.css
THEME_DARK = "#211e1c"  # the dark panel of style.css
MANIFEST = {
    "name": "Rules KB",
    "short_name": "Rules KB",
    "description": "The Magic: The Gathering rules, cross-referenced and searchable, online and offline.",
    "id": "/",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#fffdf8",
    "theme_color": THEME_LIGHT,
}
# (file, sizes, type): the manifest names each under its versioned URL (web.assets), cached for good
ICONS = (("icon.svg", "any", "image/svg+xml"), ("icon-192.png", "192x192", "image/png"),
         ("icon-512.png", "512x512", "image/png"))
_BUILD = re.compile(r"[0-9A-Za-z_.-]{1,80}")


def _kb():
    return current_app.extensions["kb"].current()


def _no_cache(response: Response) -> Response:
    response.cache_control.no_cache = True
    return response


@offline.get("/manifest.webmanifest")
def manifest():
    icons = [{"src": asset_url(name), "sizes": sizes, "type": kind, "purpose": "any maskable"}
             for name, sizes, kind in ICONS]
    body = json.dumps({**MANIFEST, "icons": icons}, ensure_ascii=False) + "\n"
    return _no_cache(Response(body, mimetype="application/manifest+json"))


@offline.get("/sw.js")
def service_worker():
    body = render_template("sw.js", core=asset_url("offline-core.js"))
    response = Response(body, mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    return _no_cache(response)


@offline.get("/offline/current")
def current():
    response = Response(json.dumps(_kb().offline.pointer()) + "\n", mimetype="application/json")
    return _no_cache(response)


@offline.get("/offline/<build>.json")
def pack(build: str):
    kb = _kb()
    if not _BUILD.fullmatch(build) or build != kb.build_id:
        # JSON whatever the Accept header: scripts ask for packs (a page would be no answer to them)
        message = f"no offline pack for build {build[:80]!r}; the current one is {kb.offline.pointer()['url']}"
        return Response(json.dumps({"error": {"code": "not_found", "message": message}}) + "\n", status=404,
                        mimetype="application/json")
    made = kb.offline
    response = Response(made.body, mimetype="application/json")
    zipped = accepts_gzip()
    # the gzipped bytes and the plain ones each with a validator of its own (RFC 9110 8.8.3): with one for both, a
    # client (or a shared cache) revalidating the gzipped pack for a client without gzip was told 304
    response.set_etag(made.etag + ("-gzip" if zipped else ""), weak=True)
    response.cache_control.public = True
    response.cache_control.max_age = YEAR
    response.cache_control.immutable = True
    response.make_conditional(request)
    if response.status_code == 200 and zipped:
        gzipped(response, made.gz)
    return response


@offline.get("/offline/shell")
def shell():
    from web.pages import render_page

    kb = _kb()
    response = render_page("offline.html", title="Rules KB (offline)", description="The saved rules, offline.",
                           alternate="/offline/current", build=kb.build_id)
    return _no_cache(response)
