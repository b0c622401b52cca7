"""``kb cr update``: fetch the newest official rules release, check it, add it to the history, rebuild.

Only the rules page's own origin is read (``--from`` or ``KB_CR_SOURCE``, Wizards' page by default, whose
releases are on media.wizards.com): https (plain http only for a page on a loopback address, a local mirror),
no redirect elsewhere, no other scheme, within a size and a time limit; nothing of a download that is not a
rules file is printed (a page served by anyone could otherwise print itself through the error).

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

import ipaddress
import os
import re
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from bs4 import BeautifulSoup

from ingest.errors import ParseError
from ingest.releases import load_release, release_files

__all__ = ["UpdateError", "Updated", "newest_txt_link", "origins_of", "update", "RULES_PAGE"]

RULES_PAGE = "https://magic.wizards.com/en/rules"
# the hosts Wizards' page links its releases from, besides its own
WIZARDS_HOSTS = ("magic.wizards.com", "media.wizards.com")
MAX_BYTES = 20 * 1024 * 1024  # a release is ~1 MB (2 MB in UTF-16)
TIMEOUT = 30  # seconds for one download, whole (and for each read of it)
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


def origins_of(page_url: str) -> frozenset[tuple[str, str, int]]:
    """The (scheme, host, port) the update may read, from the rules page's address; UpdateError for a page that is
    neither https nor a loopback address."""
    parts = urlparse(page_url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise UpdateError(f"{page_url}: not an address") from None
    if scheme != "https" and not (scheme == "http" and _loopback(host)):
        raise UpdateError(f"{page_url}: the rules page must be an https address")
    hosts = WIZARDS_HOSTS if host in WIZARDS_HOSTS else (host,)
    return frozenset((scheme, h, port) for h in hosts)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _allowed(url: str, origins: frozenset[tuple[str, str, int]]) -> bool:
    parts = urlparse(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        return False
    return (scheme, (parts.hostname or "").lower(), port) in origins


class _SameOrigins(urllib.request.HTTPRedirectHandler):
    """Redirects followed only to the allowed origins (another host, port or scheme ends the update)."""

    def __init__(self, origins: frozenset[tuple[str, str, int]]):
        self.origins = origins

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if not _allowed(newurl, self.origins):
            raise UpdateError(f"{req.full_url}: redirected to another site ({urlparse(newurl).scheme}://"
                              f"{urlparse(newurl).netloc}), not followed")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _get(url: str, limit: int, origins: frozenset[tuple[str, str, int]]) -> bytes:
    if not _allowed(url, origins):
        parts = urlparse(url)
        raise UpdateError(f"{parts.scheme}://{parts.netloc}: not the rules page's site; only "
                          + ", ".join(sorted(f"{s}://{h}" + ("" if p in (80, 443) else f":{p}") for s, h, p in origins))
                          + " are read")
    opener = urllib.request.OpenerDirector()  # http and https only: no ftp:, file: or data: handler
    for handler in (urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(), _SameOrigins(origins),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    request = urllib.request.Request(url, headers={"User-Agent": "rules-kb (kb cr update)"})
    deadline = time.monotonic() + TIMEOUT
    chunks: list[bytes] = []
    size = 0
    try:
        with opener.open(request, timeout=TIMEOUT) as response:
            while size <= limit and (chunk := response.read(64 * 1024)):
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() > deadline:
                    raise UpdateError(f"{url}: not downloaded within {TIMEOUT} s")
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{url}: HTTP {exc.code}") from None  # the server's own words are not repeated
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UpdateError(f"{url}: {reason if isinstance(reason, OSError) else 'no answer'}") from None
    if size > limit:
        raise UpdateError(f"{url}: larger than {limit // (1024 * 1024)} MB, not a rules release")
    return b"".join(chunks)


def _file_name(url: str) -> str | None:
    m = _DATE.search(unquote(urlparse(url).path.rsplit("/", 1)[-1]))
    return f"MagicCompRules_{''.join(m.groups())}.txt" if m else None


def update(folder: Path, rebuild, page_url: str = RULES_PAGE) -> Updated:
    """Add the newest release to ``folder`` and call ``rebuild()`` (returns a build id); see the module docstring."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UpdateError(f"{folder}: no such history folder")
    origins = origins_of(page_url)
    page = _get(page_url, 5 * 1024 * 1024, origins).decode("utf-8", errors="replace")
    link = newest_txt_link(page, page_url)
    name = _file_name(link)
    if name and (folder / name).exists():
        return Updated("already current", name)
    data = _get(link, MAX_BYTES, origins)
    with tempfile.TemporaryDirectory() as tmp:
        candidate = Path(tmp) / (name or "MagicCompRules_new.txt")
        candidate.write_bytes(data)
        try:
            release = load_release(candidate)
        except ParseError as exc:  # what was expected and where; nothing of what the download says
            said = "\n".join(f"{Path(p.file).name}:{p.line}: expected {p.expected}" for p in exc.problems[:5])
            raise UpdateError(f"{link}: the download is not a release the parser accepts:\n{said}") from None
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
