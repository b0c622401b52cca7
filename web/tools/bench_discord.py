"""``kb bench``'s Discord figures: signed interactions against the running ``kb serve``.

The server under test gets a public key generated for the run; each client
signs every request afresh (timestamp + body, as Discord does), so the
figures include the server's signature check. Two loads: the command mix
(/rule, /card, /search, /define: what a reply costs) and autocomplete (what
Discord needs answered well inside its 3 s while someone types). Each is
compared with /api/health measured in the same run by ``web.tools.bench.run_http``.
"""
from __future__ import annotations

import http.client
import json
import threading
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["signing_key", "public_hex", "measure", "COMMAND_MIX", "AUTOCOMPLETE_MIX"]

COMMAND_MIX = [("rule", "ref", "907.4b"), ("card", "name", "tarmogyof"), ("search", "query", "nut counters"),
               ("define", "term", "unveil"), ("rule", "ref", "702.187"), ("card", "name", "the metamorph"),
               ("search", "query", "who is the starting player"), ("rule", "ref", "Token Cards g)")]
AUTOCOMPLETE_MIX = [("rule", "ref", "907.4"), ("card", "name", "the me"), ("define", "term", "un"),
                    ("card", "name", "tarmo"), ("rule", "ref", "token")]


def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def public_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def _body(kind: int, command: str, option: str, value: str) -> bytes:
    typed = {"name": option, "type": 3, "value": value, **({"focused": True} if kind == 4 else {})}
    return json.dumps({"type": kind, "id": "1", "application_id": "1", "token": "bench", "version": 1,
                       "data": {"id": "1", "name": command, "type": 1, "options": [typed]}}).encode()


def measure(port: int, key: Ed25519PrivateKey, clients: int, seconds: float, kind: int) -> dict:
    """Signed interactions of ``kind`` (2: commands, 4: autocomplete) for ``seconds`` from ``clients``."""
    mix = COMMAND_MIX if kind == 2 else AUTOCOMPLETE_MIX
    bodies = [_body(kind, *m) for m in mix]
    latencies: list[float] = []
    errors: list[int] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine: list[float] = []
        bad: list[int] = []
        try:
            _load(conn, k, mine, bad)
        finally:
            conn.close()
        with lock:
            latencies.extend(mine)
            errors.extend(bad)

    def _load(conn: http.client.HTTPConnection, i: int, mine: list[float], bad: list[int]) -> None:
        while time.perf_counter() < deadline:
            body = bodies[i % len(bodies)]
            stamp = str(int(time.time()))
            headers = {"Content-Type": "application/json", "X-Signature-Timestamp": stamp,
                       "X-Signature-Ed25519": key.sign(stamp.encode() + body).hex()}
            t = time.perf_counter()  # the client's signing is not the server's time
            conn.request("POST", "/discord/interactions", body=body, headers=headers)
            response = conn.getresponse()
            reply = response.read()
            mine.append(time.perf_counter() - t)
            if response.status != 200 or json.loads(reply).get("type") != (4 if kind == 2 else 8):
                bad.append(response.status)
            i += clients

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    from web.tools.bench import run_clients  # the same figures as every other HTTP load

    return run_clients(threads, latencies, errors)
