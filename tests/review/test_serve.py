"""`scigate review serve` end to end, and untrusted text shown as text."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from _cli import interruptible
from scigate.review import TOOLGATE, ReviewApp, serve_in_thread
from scigate.store import CandidateRecord, Store


def test_serve_prints_a_url_that_opens_the_app(gate_db: tuple[Path, list[str]]) -> None:
    path, _ids = gate_db
    proc = subprocess.Popen(
        [sys.executable, "-m", "scigate", "review", "serve", "--db", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
        preexec_fn=interruptible,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(2)]  # type: ignore[union-attr]
        assert "reviewing 11 items" in lines[0] and "toolgate protocol" in lines[0]
        m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", lines[1])
        assert m, lines
        port, token = int(m.group(1)), m.group(2)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/?token={token}", headers={"Host": f"127.0.0.1:{port}"})
        res = conn.getresponse()
        res.read()
        assert res.status == 303
        cookie = res.getheader("Set-Cookie").split(";")[0]
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
        res = conn.getresponse()
        assert res.status == 200 and 'action="/login"' in res.read().decode()
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode in (0, 130), proc.stderr.read()  # type: ignore[union-attr]


def test_bad_serve_options_are_one_line(gate_db: tuple[Path, list[str]], tmp_path: Path) -> None:
    from _cli import run_main

    path, _ = gate_db
    code, _, stderr = run_main("review", "serve", "--db", str(path), "--protocol", "nope")
    assert code == 2 and stderr.count("\n") == 1 and "unknown review protocol" in stderr
    code, _, stderr = run_main("review", "serve", "--db", str(tmp_path / "missing.db"))
    assert code == 2 and "database not found" in stderr


def test_untrusted_text_is_escaped(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    evil = '<script>alert("q")</script><img src=x onerror=alert(1)>'
    with Store(db) as store:
        run = store.create_run("gate", run_id="r")
        cid, _ = store.add_candidate(
            CandidateRecord(
                run_id=run, question=evil, options={"A": evil, "B": "2"}, answer="A", family=evil
            )
        )
        store.add_gate_result(run, cid, "verify", outcome="pass", reason=evil)
        store.add_reviewer("Ada")
        store.save_reviews(
            [
                {
                    "item_id": cid,
                    "item_kind": "candidate",
                    "protocol": "toolgate",
                    "reviewer": "Ada",
                    "criterion": "correct",
                    "verdict": "yes",
                    "note": evil,
                }
            ]
        )
        store.set_run_status(run, "finished")
    app = ReviewApp(db, TOOLGATE)
    srv = serve_in_thread(app)
    try:
        for path in ("/", f"/item/{cid}"):
            conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
            conn.request(
                "GET",
                path,
                headers={
                    "Host": f"127.0.0.1:{app.port}",
                    "Cookie": f"{app.cookie}={app.token}; {app.cookie}_name=Ada",
                },
            )
            html = conn.getresponse().read().decode()
            assert "<script>alert" not in html and "<img src=x" not in html
            assert "&lt;script&gt;alert(" in html
    finally:
        srv.shutdown()
        srv.server_close()
