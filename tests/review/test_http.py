"""The review server refuses requests without the token, from a foreign Origin or Host,
without the CSRF token, and malformed verdicts; good saves from many threads all land."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from scigate.review import TOOLGATE, ReviewApp, serve_in_thread
from scigate.store import Store


@pytest.fixture
def server(gate_db: tuple[Path, list[str]]) -> Iterator[tuple[ReviewApp, list[str]]]:
    path, ids = gate_db
    app = ReviewApp(path, TOOLGATE)
    srv = serve_in_thread(app)
    yield app, ids
    srv.shutdown()
    srv.server_close()


def _request(
    app: ReviewApp,
    method: str,
    path: str,
    body: dict | str | None = None,
    *,
    cookie: bool = True,
    name: str | None = "Ada",
    csrf: str | None = "",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
    h = {"Host": f"127.0.0.1:{app.port}"}
    cookies = []
    if cookie:
        cookies.append(f"{app.cookie}={app.token}")
    if name:
        cookies.append(f"{app.cookie}_name={name}")
    if cookies:
        h["Cookie"] = "; ".join(cookies)
    data = None
    if body is not None:
        data = body if isinstance(body, str) else json.dumps(body)
        h["Content-Type"] = "application/json"
        if csrf is not None:
            h["X-CSRF-Token"] = app.csrf if csrf == "" else csrf
    h |= headers or {}
    conn.request(method, path, body=data, headers=h)
    res = conn.getresponse()
    text = res.read().decode()
    conn.close()
    return res.status, dict(res.getheaders()), text


def _verdict(item: str, **kw: str) -> dict[str, str]:
    return {"item_id": item, "criterion": "correct", "verdict": "yes"} | kw


def test_token_sets_a_strict_cookie_and_pages_need_it(server) -> None:
    app, ids = server
    status, headers, _ = _request(app, "GET", f"/?token={app.token}", cookie=False, name=None)
    assert status == 303 and headers["Location"] == "/"
    assert f"{app.cookie}={app.token}" in headers["Set-Cookie"]
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    for path in ("/", f"/item/{ids[0]}", "/static/review.js", "/?token=wrong"):
        status, _, text = _request(app, "GET", path, cookie=False)
        assert status == 403 and "access token" in text
    status, headers, text = _request(app, "GET", "/")
    assert status == 200 and ids[0] in text
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, _, text = _request(app, "GET", "/", name=None)  # no name yet: the sign-in page
    assert status == 200 and 'action="/login"' in text
    status, _, _ = _request(app, "GET", "/static/../_server.py")
    assert status == 404


def test_posts_are_refused_without_token_csrf_or_with_foreign_origin_or_host(server) -> None:
    app, ids = server
    good = _verdict(ids[0])
    own = f"http://127.0.0.1:{app.port}"
    refusals = [
        (_request(app, "POST", "/api/verdict", good, cookie=False), 403, "access token"),
        (_request(app, "POST", "/api/verdict", good, csrf=None), 403, "CSRF"),
        (_request(app, "POST", "/api/verdict", good, csrf="guess"), 403, "CSRF"),
        (
            _request(app, "POST", "/api/verdict", good, headers={"Origin": "http://evil.example"}),
            403,
            "foreign Origin",
        ),
        (
            _request(app, "POST", "/api/verdict", good, headers={"Origin": own + ".evil.example"}),
            403,
            "foreign Origin",
        ),
        (
            _request(app, "POST", "/api/verdict", good, headers={"Host": "evil.example"}),
            403,
            "Host",
        ),
        (_request(app, "POST", "/api/verdict", good, name=None), 403, "sign in"),
        (_request(app, "POST", "/api/verdict", good, name="Zed"), 400, "unknown reviewer"),
    ]
    for (status, _, text), want, words in refusals:
        assert status == want and words in text, (status, text)
    with Store(app.db) as store:
        assert store.reviews() == []
    status, _, text = _request(app, "POST", "/api/verdict", good, headers={"Origin": own})
    assert status == 200 and json.loads(text)["decision"] == "pending"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("{not json", "malformed"),
        ("[1, 2]", "malformed"),
        ({"item_id": "nope", "criterion": "correct", "verdict": "yes"}, "unknown item"),
        ({"criterion": "correct", "verdict": "yes"}, "unknown item"),
        ("criterion", "not in the toolgate protocol"),
        ("verdict", "is not one of yes, no, unsure"),
        ("note", "note must be text"),
    ],
)
def test_malformed_verdicts_are_refused(server, body, words: str) -> None:
    app, ids = server
    if body == "criterion":
        body = _verdict(ids[0], criterion="elegance")
    elif body == "verdict":
        body = _verdict(ids[0], verdict="<b>yes</b>")
    elif body == "note":
        body = _verdict(ids[0]) | {"note": ["a list"]}
    status, headers, text = _request(app, "POST", "/api/verdict", body)
    assert status == 400 and words in json.loads(text)["error"]
    assert headers["Content-Type"].startswith("application/json")
    with Store(app.db) as store:
        assert store.reviews() == []


def test_concurrent_saves_over_http_all_land(server) -> None:
    app, ids = server
    errors: list[str] = []

    def reviewer(name: str) -> None:
        for item in ids:
            for k in TOOLGATE.criterion_keys():
                status, _, text = _request(
                    app, "POST", "/api/verdict", _verdict(item, criterion=k), name=name
                )
                if status != 200:
                    errors.append(text)

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in ("Ada", "Bo", "Cy")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Store(app.db) as store:
        assert len(store.reviews()) == 3 * len(ids) * 4
    status, _, text = _request(app, "GET", "/?decision=approved")
    assert status == 200 and f"{len(ids)} of {len(ids)} items" in text


def test_allowed_hosts_and_the_served_url(gate_db: tuple[Path, list[str]]) -> None:
    from scigate.review import url_of

    path, _ = gate_db
    app = ReviewApp(path, TOOLGATE, allow_hosts=("review.lab",))
    srv = serve_in_thread(app)
    try:
        assert url_of(app, "127.0.0.1") == f"http://127.0.0.1:{app.port}/?token={app.token}"
        for host, want in ((f"review.lab:{app.port}", 200), (f"localhost:{app.port}", 200)):
            status, _, _ = _request(app, "GET", "/", headers={"Host": host})
            assert status == want
        status, _, _ = _request(app, "GET", "/", headers={"Host": "review.lab:1"})
        assert status == 403
    finally:
        srv.shutdown()
        srv.server_close()
