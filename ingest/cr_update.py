"""``kb cr update``: fetch the newest official rules release, check it, add it to the history, rebuild.

1. Read the official rules page (HTML) and find its links to TXT releases with
   BeautifulSoup; the newest is the one whose address carries the latest date
   (Wizards names them ``MagicCompRules 20260807.txt``).
2. If the history folder already holds that release, stop: "already current" (exit 0).
3. Download it (to a temporary file, size-capped, with a timeout), decode and
   parse it like every other release (ingest.releases.load_release); its own
   effective date must not be in the history yet.
4. Move it into the folder under Wizards' name pattern and rebuild; the build is
   published atomically. A failed download, a file that does not parse, or a
   failed rebuild changes nothing (the added file is taken back out).
"""
from __future__ import annotations

import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from bs4 import BeautifulSoup

from ingest.errors import ParseError
from ingest.releases import load_release, release_files

__all__ = ["UpdateError", "Updated", "newest_txt_link", "update", "RULES_PAGE"]

RULES_PAGE = "https://magic.wizards.com/en/rules"
MAX_BYTES = 20 * 1024 * 1024  # a release is ~1 MB (2 MB in UTF-16)
TIMEOUT = 30
_DATE = re.compile(r"(20\d{2})[-_ ]?(\d{2})[-_ ]?(\d{2})")


class UpdateError(Exception):
    """Why nothing changed."""


@dataclass
class Updated:
    status: str  # "added" or "already current"
    file: str
    effective: str | None = None
    build_id: str | None = None


def newest_txt_link(html: str, base_url: str) -> str:
    """The absolute address of the newest TXT release linked from the rules page."""
    soup = BeautifulSoup(html, "html.parser")
    links = []
    for a in soup.find_all("a", href=True):
        href = urljoin(base_url, str(a["href"]).strip())
        if urlparse(href).path.lower().endswith(".txt"):
            m = _DATE.search(unquote(urlparse(href).path.rsplit("/", 1)[-1]))
            links.append(("".join(m.groups()) if m else "", href))
    if not links:
        raise UpdateError(f"{base_url}: no link to a TXT release of the rules on the page")
    return max(links, key=lambda link: link[0])[1]


def _get(url: str, limit: int) -> bytes:
    if urlparse(url).scheme not in ("http", "https"):
        raise UpdateError(f"{url}: only http and https addresses are read")
    request = urllib.request.Request(url, headers={"User-Agent": "rules-kb (kb cr update)"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - scheme checked above
            data = response.read(limit + 1)
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise UpdateError(f"{url}: {getattr(exc, 'reason', exc)}") from None
    if len(data) > limit:
        raise UpdateError(f"{url}: larger than {limit // (1024 * 1024)} MB, not a rules release")
    return data


def _file_name(url: str) -> str | None:
    m = _DATE.search(unquote(urlparse(url).path.rsplit("/", 1)[-1]))
    return f"MagicCompRules_{''.join(m.groups())}.txt" if m else None


def update(folder: Path, rebuild, page_url: str = RULES_PAGE) -> Updated:
    """Add the newest release to ``folder`` and call ``rebuild()`` (returns a build id); see the module docstring."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UpdateError(f"{folder}: no such history folder")
    page = _get(page_url, 5 * 1024 * 1024).decode("utf-8", errors="replace")
    link = newest_txt_link(page, page_url)
    name = _file_name(link)
    if name and (folder / name).exists():
        return Updated("already current", name)
    data = _get(link, MAX_BYTES)
    with tempfile.TemporaryDirectory() as tmp:
        candidate = Path(tmp) / (name or "MagicCompRules_new.txt")
        candidate.write_bytes(data)
        try:
            release = load_release(candidate)
        except ParseError as exc:
            raise UpdateError(f"{link}: the download is not a release the parser accepts:\n{exc}") from None
    name = name or f"MagicCompRules_{release.effective.replace('-', '')}.txt"
    known = {}
    for path in release_files(folder):
        m = _DATE.search(path.name)
        if m:
            known["-".join(m.groups())] = path.name
    if release.effective in known or (folder / name).exists():
        return Updated("already current", known.get(release.effective, name), release.effective)
    final = folder / name
    partial = folder / f".{name}.partial"
    partial.write_bytes(data)
    os.replace(partial, final)
    try:
        build_id = rebuild()
    except BaseException:
        final.unlink(missing_ok=True)  # the previous build is still current; the folder is as it was
        raise
    return Updated("added", name, release.effective, build_id)
