"""web.lane: the API's most asked answers made without Flask's request machinery are the answers Flask makes, byte for
byte and header for header, and everything the lane does not take goes to Flask."""
from __future__ import annotations

import contextlib
import gzip
import json

import pytest
from flask import request_started
from werkzeug.test import EnvironBuilder

# (path, query string, request headers): what the lane answers itself
LANE = [
    ("/api/search", "q=trample", {}),
    ("/api/search", "q=trample", {"Accept-Encoding": "gzip, deflate, br"}),
    ("/api/search", "q=trample", {"Accept-Encoding": "gzip;q=0, deflate"}),  # refused gzip: plain
    ("/api/search", "q=trample", {"Accept-Encoding": "*"}),
    ("/api/search", "q=trample", {"Accept-Encoding": "identity, *;q=0"}),
    ("/api/search", "q=face+down&limit=3&offset=2", {}),
    ("/api/search", "q=face%20down&page=2&limit=4", {}),
    ("/api/search", "q=counters&doc=futuresight&kind=ruling", {}),
    ("/api/search", "q=trample&page=99999", {}),  # past the last page: none
    ("/api/search", "q=identity+card&q=lifelink", {}),  # each argument's first value, as request.args.get reads it
    ("/api/search", "q=%C3%A6ther+%E2%80%94+vial", {}),  # UTF-8, percent-encoded
    ("/api/search", "q=%ff%fe", {}),  # no UTF-8: left percent-encoded, as werkzeug leaves it
    ("/api/search", "q=", {}),
    ("/api/search", "", {}),
    ("/api/search", "q=tarmogyof", {}),  # a "did you mean"
    ("/api/search", "q=702.19b", {}),  # a rule's number: a redirect in the answer
    ("/api/search", "q=716.2%402016-07-22", {}),  # a dated rule, without the history: a note says why
    ("/api/search", "q=trample&x=%3Cscript%3E", {"Accept": "text/html"}),
    ("/api/search", "q=unveil", {"Host": "[::1]:8080"}),
    ("/api/health", "", {}),
    ("/api/health", "verbose=1", {"Accept-Encoding": "gzip"}),  # under MIN_SIZE: never gzipped
]
# errors the view's function raises: answered by Flask's handlers, once (the lane does not search again)
ERRORS = [
    ("/api/search", "q=trample&limit=ten", {}),
    ("/api/search", "q=trample&page=0", {}),
    ("/api/search", "q=%00", {}),
    ("/api/search", "q=trample&limit=-1", {"Accept-Encoding": "gzip"}),
]
# what the lane leaves to Flask as it came
FLASK = [
    ("HEAD", "/api/search", "q=trample", {}, None),
    ("OPTIONS", "/api/search", "q=trample", {}, None),
    ("POST", "/api/search", "q=trample", {"Content-Type": "application/json"}, b"{}"),
    ("GET", "/api/search", "q=trample", {"Content-Type": "text/plain"}, b"a body"),
    ("GET", "/api/search/", "q=trample", {}, None),  # a trailing slash: Flask's redirect
    ("GET", "/API/search", "q=trample", {}, None),
    ("GET", "/api/search", "q=trample", {"Host": "a b"}, None),  # no host name: Flask's 400
    ("GET", "/api/health", "", {"Host": "example.org:99999"}, None),
    ("GET", "/api/records/cr/702.19", "", {}, None),
]


def _environ(method: str, path: str, query: str, headers: dict[str, str], data: bytes | None = None) -> dict:
    return EnvironBuilder(path=path, method=method, query_string=query, headers=list(headers.items()), data=data,
                          environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_environ()


def _answer(wsgi, environ: dict) -> tuple[str, list[tuple[str, str]], bytes]:
    said = {}

    def start_response(status, headers, exc_info=None):
        said["status"], said["headers"] = status, headers

    body = wsgi(environ, start_response)
    try:
        data = b"".join(body)
    finally:
        if hasattr(body, "close"):
            body.close()
    return said["status"], list(said["headers"]), data


@contextlib.contextmanager
def _flask_requests(app):
    """How many requests Flask itself dispatched meanwhile (its request_started signal)."""
    seen: list[object] = []

    def count(sender, **extra):
        seen.append(sender)

    request_started.connect(count, app)
    try:
        yield seen
    finally:
        request_started.disconnect(count, app)


@pytest.mark.parametrize(("path", "query", "headers"), LANE + ERRORS)
def test_the_lane_answers_what_flask_answers(app, path, query, headers):
    lane = app.extensions["lane"]
    flask_says = _answer(lane.app, _environ("GET", path, query, headers))
    with _flask_requests(app) as dispatched:
        lane_says = _answer(lane, _environ("GET", path, query, headers))
    assert lane_says[0] == flask_says[0]
    assert lane_says[1] == flask_says[1]  # the same headers, in the same order
    assert lane_says[2] == flask_says[2]
    if (path, query, headers) in LANE:
        assert lane_says[0] == "200 OK" and dispatched == []  # made without Flask's request machinery
    else:
        assert lane_says[0].startswith("400") and dispatched == []  # its error handlers, without dispatching again


# query strings werkzeug reads in its own ways: each is read by the lane as request.args.get reads it
QUERIES = ["q=a+b&q=c", "q=%2B%26%3D", "q&q=x", "=x&q=", "&&q=a&&", "q=a=b", "q=%ff%zz%", "q=%C3%A6%", "a+b=c&a%20b=d",
           "q=\u00e6", "q=;x=1", "q=a%00", "%71=first&q=second"]


@pytest.mark.parametrize("query", QUERIES)
def test_the_lane_reads_the_arguments_as_werkzeug_reads_them(query):
    from werkzeug.wrappers import Request

    from web.lane import query_args

    args = Request(_environ("GET", "/api/search", "", {}) | {"QUERY_STRING": query.encode().decode("latin-1")}).args
    assert query_args(query.encode().decode("latin-1")) == {name: args.get(name) for name in args}


def test_what_the_lane_answers_is_the_api(client):
    # through the whole app (the gate, the trusted proxies): the security headers, gzip and the JSON of the API
    plain = client.get("/api/search?q=trample")
    zipped = client.get("/api/search?q=trample", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    assert plain.get_json()["query"] == "trample" and plain.get_json()["total"] > 0
    for answer in (plain, zipped):
        assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        assert answer.headers["Vary"] == "Accept-Encoding"
        assert int(answer.headers["Content-Length"]) == len(answer.data)


@pytest.mark.parametrize(("method", "path", "query", "headers", "data"), FLASK)
def test_the_lane_leaves_the_rest_to_flask(app, method, path, query, headers, data):
    lane = app.extensions["lane"]
    with _flask_requests(app) as dispatched:
        lane_says = _answer(lane, _environ(method, path, query, headers, data))
    assert len(dispatched) == 1
    assert lane_says == _answer(lane.app, _environ(method, path, query, headers, data))


def test_the_lane_gives_its_searcher_back(app):
    # the teardown's work: a worker's threads take turns with a few searchers (web.app), the lane's requests too
    searcher = app.extensions["kb"].current().searcher
    lane = app.extensions["lane"]
    for query in ("q=trample", "q=trample&limit=ten"):
        _answer(lane, _environ("GET", "/api/search", query, {}))
        assert getattr(searcher.tables._local, "searcher", None) is None, query


def _records(app, kinds=("rule", "card", "ruling")) -> list[str]:
    records = app.extensions["kb"].current().store.records.values()
    return [next(r.id for r in records if r.kind == kind) for kind in kinds]


@pytest.mark.parametrize("headers", [
    {},
    {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Encoding": "gzip, br"},
    {"Accept-Encoding": "gzip"},  # again: from the gzip kept for this address
    {"Accept-Encoding": "gzip;q=0"},
    {"Host": "rules.example.org"},
    {"Host": "rules.example.org", "Accept-Encoding": "gzip"},  # another address: its own gzip
    {"Host": "xn--bcher-kva.example:8080"},  # werkzeug's host_url reads punycode as Unicode
    {"Host": "[::1]:8080", "Accept": "*/*"},
])
def test_a_kept_record_page_is_answered_as_flask_answers_it(app, headers):
    lane = app.extensions["lane"]
    for record_id in _records(app):
        path = "/" + record_id
        _answer(lane.app, _environ("GET", path, "", {}))  # rendered and kept by the view
        flask_says = _answer(lane.app, _environ("GET", path, "", headers))
        with _flask_requests(app) as dispatched:
            lane_says = _answer(lane, _environ("GET", path, "", headers))
        assert dispatched == [], path
        assert lane_says == flask_says, path
        assert lane_says[0] == "200 OK" and lane_says[1][0] == ("Content-Type", "text/html; charset=utf-8")


def test_a_record_page_says_the_public_address(app):
    lane = app.extensions["lane"]
    record_id = _records(app, ("rule",))[0]
    app.config["KB_PUBLIC_URL"] = "https://rules.example.org/"
    try:
        with _flask_requests(app) as dispatched:
            status, headers, body = _answer(lane, _environ("GET", "/" + record_id, "", {"Host": "evil.example"}))
        assert dispatched == [] and status == "200 OK"
        assert b"https://rules.example.org/" in body and b"evil.example" not in body
        evil = _environ("GET", "/" + record_id, "", {"Host": "evil.example"})
        assert (status, headers, body) == _answer(lane.app, evil)
    finally:
        app.config["KB_PUBLIC_URL"] = None


def test_the_lane_leaves_other_pages_to_flask(app):
    lane = app.extensions["lane"]
    record_id = _records(app, ("rule",))[0]
    doc = record_id.split("/")[0]
    _answer(lane.app, _environ("GET", "/" + record_id, "", {}))
    _answer(lane.app, _environ("GET", "/" + doc, "", {}))  # the contents page, kept as "contents:<doc>"
    cases = [
        ("/" + record_id, "from=1", {}),  # the rename note's query
        ("/" + record_id, "", {"Accept": "application/json"}),  # the twin
        ("/" + record_id + "/", "", {}),  # the trailing slash's redirect
        ("/" + record_id.upper(), "", {}),  # read as the record, by Flask
        ("/" + doc, "", {}),  # a document's contents
        ("/contents:" + doc, "", {}),  # no record: the 404, not the kept contents page
        ("/nope/x", "", {}),
        ("/cr/all", "", {}),
        ("/" + record_id, "", {"Host": "a b"}),
    ]
    for path, query, headers in cases:
        with _flask_requests(app) as dispatched:
            lane_says = _answer(lane, _environ("GET", path, query, headers))
        assert len(dispatched) == 1, path
        assert lane_says == _answer(lane.app, _environ("GET", path, query, headers)), path
