"""`scigate review serve`: the local review web app.

Standard library HTTP (`ThreadingHTTPServer`) and jinja2 templates with bundled assets;
nothing is fetched from the network. Access needs the random token of the printed URL,
which the first visit turns into an HttpOnly, SameSite=Strict cookie named after the port.
Every request must name this server in its Host header (no DNS rebinding); every POST
must carry the page's CSRF token and, when the browser sends one, this server's Origin.
Each request opens its own connection to the run database, and every save is one
transaction, so several reviewers (or several servers on one file) never lose a write.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from jinja2 import Environment, PackageLoader

from scigate.errors import BadInput
from scigate.review._decide import DECISIONS, ballots_by_item, decide
from scigate.review._items import Item, item_detail, item_kinds, load_items
from scigate.review._protocols import VERDICTS, Protocol
from scigate.review._verdicts import check_name, check_verdict

if TYPE_CHECKING:
    from scigate.store import Store

STATIC = {"review.css": "text/css; charset=utf-8", "review.js": "text/javascript; charset=utf-8"}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Largest request body accepted (bytes).
MAX_BODY = 64 * 1024
FILTERS = ("kind", "status", "stage", "domain", "family", "level", "decision", "flagged", "q")


class Refused(Exception):
    """A request refused with an HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class ReviewApp:
    """The state of one review server: database, protocol, token and templates."""

    def __init__(
        self,
        db: Path,
        protocol: Protocol,
        *,
        bench: Path | None = None,
        token: str | None = None,
        allow_hosts: tuple[str, ...] = (),
    ) -> None:
        from scigate.store import Store

        self.db = Path(db)
        Store(self.db, create=False).close()  # BadInput now, not on the first request
        self.protocol = protocol
        self.bench = bench
        self.extra_hosts = allow_hosts  # further names reviewers reach the server by
        self.token = token or secrets.token_urlsafe(24)
        self.csrf = secrets.token_urlsafe(24)
        self.port = 0
        self.hosts: set[str] = set()
        self.env = Environment(loader=PackageLoader("scigate.review", "templates"), autoescape=True)

    def store(self) -> Any:
        """A fresh connection for one request (closed by the caller)."""
        from scigate.store import Store

        return Store(self.db, create=False)

    def allow(self, host: str, port: int) -> None:
        """Accept Host headers naming this server."""
        self.port = port
        names = (
            {host, "127.0.0.1", "localhost", "[::1]"}
            if host in ("127.0.0.1", "localhost", "::1")
            else {host}
        )
        self.hosts = {f"{h}:{port}" for h in names | set(self.extra_hosts)}

    @property
    def cookie(self) -> str:
        """The access cookie's name (per port: two servers on one host keep theirs)."""
        return f"scigate_review_{self.port}"

    def render(self, name: str, **ctx: Any) -> str:
        """A page from the bundled templates, autoescaped."""
        return self.env.get_template(name).render(
            protocol=self.protocol, csrf=self.csrf, verdicts=VERDICTS, **ctx
        )


def queue_items(app: ReviewApp, store: Store, params: dict[str, str]) -> tuple[list[Item], dict]:
    """The items matching the queue filters, and each item's review decision."""
    items = load_items(store, app.bench)
    ballots = ballots_by_item(store.reviews(protocol=app.protocol.name), app.protocol)
    decision = {i.id: decide(app.protocol, ballots.get(i.id, {})) for i in items}
    out = []
    for i in items:
        if params.get("flagged") and not i.flagged:
            continue
        status = params.get("status")
        if status and not (i.status == status or i.status.startswith(status + "-")):
            continue
        if params.get("stage") and i.stage != params["stage"]:
            continue
        if params.get("kind") and i.kind != params["kind"]:
            continue
        if any(
            params.get(k) and (getattr(i, k) or "") != params[k]
            for k in ("domain", "family", "level")
        ):
            continue
        if params.get("decision") and decision[i.id] != params["decision"]:
            continue
        if params.get("q") and params["q"].lower() not in i.question.lower():
            continue
        out.append(i)
    return out, {"decision": decision, "ballots": ballots, "all": items}


class Handler(BaseHTTPRequestHandler):
    """One request to the review app."""

    app: ReviewApp
    server_version = "scigate-review"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL, not every request."""

    # -- plumbing --------------------------------------------------------------------

    def _send(
        self, status: int, body: str | bytes, ctype: str, headers: dict | None = None
    ) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "same-origin")  # no-referrer makes Origin "null"
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Frame-Options", "DENY")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _json(self, status: int, payload: dict) -> None:
        self._send(status, json.dumps(payload), "application/json; charset=utf-8")

    def _refuse(self, exc: Refused) -> None:
        if self.path.startswith("/api/"):
            self._json(exc.status, {"ok": False, "error": str(exc)})
        else:
            self._send(exc.status, f"{exc}\n", "text/plain; charset=utf-8")

    def _cookies(self) -> SimpleCookie:
        jar = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie") or "")
        except Exception:  # a malformed cookie header is no cookie
            return SimpleCookie()
        return jar

    def _check_host(self) -> None:
        if (self.headers.get("Host") or "") not in self.app.hosts:
            raise Refused(HTTPStatus.FORBIDDEN, "wrong Host header")

    def _authorized(self) -> bool:
        got = self._cookies().get(self.app.cookie)
        return got is not None and hmac.compare_digest(got.value, self.app.token)

    def _reviewer(self) -> str | None:
        got = self._cookies().get(self.app.cookie + "_name")
        if got is None:
            return None
        try:
            return check_name(unquote(got.value))
        except BadInput:
            return None

    def _check_post(self) -> dict[str, Any]:
        origin = self.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in self.app.hosts:
            raise Refused(HTTPStatus.FORBIDDEN, "foreign Origin")
        length = self.headers.get("Content-Length") or "0"
        if not length.isdigit() or int(length) > MAX_BODY:
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large")
        raw = self.rfile.read(int(length))
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        try:
            if ctype == "application/json":
                body = json.loads(raw.decode("utf-8") or "{}")
                if not isinstance(body, dict):
                    raise ValueError("not an object")
            elif ctype == "application/x-www-form-urlencoded":
                body = {k: v[0] for k, v in parse_qs(raw.decode("utf-8")).items()}
            else:
                raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported content type")
        except (ValueError, UnicodeDecodeError):
            raise Refused(HTTPStatus.BAD_REQUEST, "malformed request body") from None
        token = self.headers.get("X-CSRF-Token") or body.get("csrf") or ""
        if not isinstance(token, str) or not hmac.compare_digest(token, self.app.csrf):
            raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong CSRF token")
        return body

    # -- verbs -----------------------------------------------------------------------

    def do_GET(self) -> None:
        """Pages, assets and the first visit with the token."""
        try:
            self._check_host()
            url = urlsplit(self.path)
            params = {k: v[0] for k, v in parse_qs(url.query).items()}
            if "token" in params and hmac.compare_digest(params["token"], self.app.token):
                cookie = f"{self.app.cookie}={self.app.token}; HttpOnly; SameSite=Strict; Path=/"
                self._send(
                    HTTPStatus.SEE_OTHER, "", "text/plain", {"Location": "/", "Set-Cookie": cookie}
                )
                return
            if not self._authorized():
                raise Refused(
                    HTTPStatus.FORBIDDEN,
                    "missing or wrong access token: open the URL scigate printed",
                )
            if url.path.startswith("/static/"):
                self._static(url.path.removeprefix("/static/"))
                return
            reviewer = self._reviewer()
            if reviewer is None:
                self._send(
                    HTTPStatus.OK, self.app.render("login.html.j2"), "text/html; charset=utf-8"
                )
                return
            if url.path == "/":
                self._queue(reviewer, params)
            elif url.path.startswith("/item/"):
                self._item(reviewer, unquote(url.path.removeprefix("/item/")), params)
            else:
                raise Refused(HTTPStatus.NOT_FOUND, "not found")
        except Refused as exc:
            self._refuse(exc)
        except BadInput as exc:
            self._refuse(Refused(HTTPStatus.BAD_REQUEST, str(exc)))

    do_HEAD = do_GET

    def do_POST(self) -> None:
        """Sign in by name and save verdicts."""
        try:
            self._check_host()
            if not self._authorized():
                raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong access token")
            body = self._check_post()
            path = urlsplit(self.path).path
            if path == "/login":
                self._login(body)
            elif path == "/api/verdict":
                self._save(body)
            else:
                raise Refused(HTTPStatus.NOT_FOUND, "not found")
        except Refused as exc:
            self._refuse(exc)
        except BadInput as exc:
            self._refuse(Refused(HTTPStatus.BAD_REQUEST, str(exc)))

    # -- pages -----------------------------------------------------------------------

    def _static(self, name: str) -> None:
        if name not in STATIC:
            raise Refused(HTTPStatus.NOT_FOUND, "not found")
        data = resources.files("scigate.review").joinpath("templates", name).read_bytes()
        self._send(HTTPStatus.OK, data, STATIC[name])

    def _queue(self, reviewer: str, params: dict[str, str]) -> None:
        store = self.app.store()
        try:
            shown, info = queue_items(self.app, store, params)
        finally:
            store.close()
        every = info["all"]
        choices = {
            "kind": sorted({i.kind for i in every}),
            "status": sorted({i.status.split("-")[0] for i in every}),
            "stage": sorted({i.stage for i in every if i.stage}),
            "domain": sorted({i.domain for i in every if i.domain}),
            "family": sorted({i.family for i in every if i.family}),
            "level": sorted({i.level for i in every if i.level}),
            "decision": list(DECISIONS),
        }
        mine = {i.id: len(info["ballots"].get(i.id, {}).get(reviewer, {})) for i in shown}
        query = urlencode({k: v for k, v in params.items() if k in FILTERS and v})
        html = self.app.render(
            "queue.html.j2",
            reviewer=reviewer,
            items=shown,
            total=len(every),
            decision=info["decision"],
            ballots=info["ballots"],
            mine=mine,
            params=params,
            choices=choices,
            query=query,
            quote=quote,
        )
        self._send(HTTPStatus.OK, html, "text/html; charset=utf-8")

    def _item(self, reviewer: str, item_id: str, params: dict[str, str]) -> None:
        store = self.app.store()
        try:
            shown, info = queue_items(self.app, store, params)
            item = next((i for i in info["all"] if i.id == item_id), None)
            if item is None:
                raise Refused(HTTPStatus.NOT_FOUND, f"unknown item {item_id[:40]!r}")
            detail = item_detail(store, item, info["all"], self.app.bench)
        finally:
            store.close()
        ids = [i.id for i in shown]
        at = ids.index(item_id) if item_id in ids else -1
        query = urlencode({k: v for k, v in params.items() if k in FILTERS and v})
        ballots = info["ballots"].get(item_id, {})
        notes = self._notes(item_id)
        html = self.app.render(
            "item.html.j2",
            reviewer=reviewer,
            item=item,
            d=detail,
            decision=info["decision"][item_id],
            ballots=ballots,
            notes=notes,
            mine=ballots.get(reviewer, {}),
            prev_id=ids[at - 1] if at > 0 else None,
            next_id=ids[at + 1] if 0 <= at < len(ids) - 1 else None,
            position=at + 1,
            count=len(ids),
            query=query,
            quote=quote,
            json=lambda v: json.dumps(v, indent=1, ensure_ascii=False, default=str),
        )
        self._send(HTTPStatus.OK, html, "text/html; charset=utf-8")

    def _notes(self, item_id: str) -> dict[tuple[str, str], str]:
        store = self.app.store()
        try:
            rows = store.reviews(protocol=self.app.protocol.name, item_id=item_id)
        finally:
            store.close()
        return {(r["reviewer"], r["criterion"]): r["note"] for r in rows}

    def _login(self, body: dict[str, Any]) -> None:
        name = check_name(str(body.get("name") or ""))
        store = self.app.store()
        try:
            store.add_reviewer(name)
        finally:
            store.close()
        cookie = f"{self.app.cookie}_name={quote(name)}; HttpOnly; SameSite=Strict; Path=/"
        self._send(HTTPStatus.SEE_OTHER, "", "text/plain", {"Location": "/", "Set-Cookie": cookie})

    def _save(self, body: dict[str, Any]) -> None:
        reviewer = self._reviewer()
        if reviewer is None:
            raise Refused(HTTPStatus.FORBIDDEN, "sign in with your name first")
        store = self.app.store()
        try:
            verdict = check_verdict(
                {**body, "reviewer": reviewer},
                protocol=self.app.protocol,
                kinds=item_kinds(store, [str(body.get("item_id") or "").strip()]),
                reviewers=set(store.reviewers()),
            )
            store.save_reviews([verdict.model_dump()])
            rows = store.reviews(protocol=self.app.protocol.name, item_id=verdict.item_id)
        finally:
            store.close()
        ballots = ballots_by_item(rows, self.app.protocol).get(verdict.item_id, {})
        self._json(
            HTTPStatus.OK,
            {
                "ok": True,
                "saved": verdict.model_dump(),
                "decision": decide(self.app.protocol, ballots),
                "reviewers": len(ballots),
            },
        )


def make_server(app: ReviewApp, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A bound (not yet serving) server for `app`; `port` 0 picks a free one."""
    handler = type("BoundHandler", (Handler,), {"app": app})
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as e:
        raise BadInput(f"cannot listen on {host}:{port} ({e.strerror or e})") from None
    server.daemon_threads = True
    app.allow(host, server.server_address[1])
    return server


def url_of(app: ReviewApp, host: str) -> str:
    """The URL to open (it carries the access token)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{app.port}/?token={app.token}"


def serve_in_thread(app: ReviewApp, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread (tests); stop with `server.shutdown()`."""
    server = make_server(app, host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
