"""Releases with `--require-review` hold exactly the approved items; without it every
accepted item, each with its review status; datasheets state the protocol and counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import run_main
from scigate.bench import BuildConfig, build, read_tasks
from scigate.gate._export import accepted_records
from scigate.review import OPENSCITOOLBENCH
from scigate.store import Store

from .conftest import vote


def test_gate_release_requires_review(gate_db: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, _ = gate_db
    with Store(path) as store:
        accepted = [r["id"] for r in accepted_records(store)]
        assert len(accepted) == 2  # c4 and c8 (c10 repeats c0's question)
        approved, rejected = accepted
        for name in ("Ada", "Bo", "Cy"):
            vote(store, approved, name, "yes")
            vote(store, rejected, name, "yes" if name == "Ada" else "unsure")
    rel = tmp_path / "rel"
    args = ("gate", "export", "--db", str(path), "--out", str(tmp_path / "a.jsonl"))
    code, _, stderr = run_main(*args, "--release", str(rel), "--require-review")
    assert code == 0, stderr
    pool = [json.loads(line) for line in (rel / "pool.jsonl").read_text().splitlines()]
    assert [p["id"] for p in pool] == [approved]
    records = [json.loads(x) for x in (rel / "gate_records.jsonl").read_text().splitlines()]
    assert [(r["id"], r["review_status"]) for r in records] == [(approved, "approved")]
    cond = json.loads((rel / "run_conditions.json").read_text())
    assert cond["require_review"] is True and cond["review"]["status"] == {approved: "approved"}
    sheet = (rel / "DATASHEET.md").read_text()
    assert "## Expert review" in sheet and "protocol: toolgate" in sheet
    assert "only those approved by review (--require-review)" in sheet
    assert "decisions: approved 1, rejected 0" in sheet

    full = tmp_path / "full"
    code, _, stderr = run_main(*args, "--release", str(full))
    assert code == 0, stderr
    records = [json.loads(x) for x in (full / "gate_records.jsonl").read_text().splitlines()]
    status = {r["id"]: r["review_status"] for r in records}
    assert len(status) == 2
    assert status[approved] == "approved" and status[rejected] == "rejected"
    assert "whatever their review status" in (full / "DATASHEET.md").read_text()


def test_gate_release_with_nothing_approved_is_one_line(
    gate_db: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, _ = gate_db
    rel = tmp_path / "rel"
    code, _, stderr = run_main(
        "gate", "export", "--db", str(path), "--out", str(tmp_path / "a.jsonl"),
        "--release", str(rel), "--require-review",
    )  # fmt: skip
    assert code == 2 and stderr.count("\n") == 1
    assert "none of the" in stderr and "is approved under the toolgate protocol" in stderr
    assert not (rel / "pool.jsonl").exists()
    code, _, stderr = run_main(
        "gate", "export", "--db", str(path), "--out", str(tmp_path / "a.jsonl"), "--require-review"
    )
    assert code == 2 and "--require-review applies to a release" in stderr


@pytest.fixture(scope="module")
def bench_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("bench-review")
    report = build(BuildConfig(n=4, levels=[1], seed=5), d / "b.db", d / "b.jsonl")
    assert report.accepted == 4
    with Store(d / "b.db") as store:
        for name in ("Ada", "Bo", "Cy"):
            store.add_reviewer(name)
    return d / "b.db", d / "b.jsonl"


def test_bench_release_requires_review(bench_build: tuple[Path, Path], tmp_path: Path) -> None:
    src_db, bench = bench_build
    db = tmp_path / "b.db"
    db.write_bytes(src_db.read_bytes())
    ids = [t["id"] for t in read_tasks(bench)]
    with Store(db) as store:
        for name in ("Ada", "Bo", "Cy"):
            for i in ids[:2]:
                vote(store, i, name, "yes", protocol=OPENSCITOOLBENCH, kind="task")
        vote(store, ids[2], "Ada", {"answerability": "no"}, OPENSCITOOLBENCH, "task")
    out = tmp_path / "rel"
    code, _, stderr = run_main(
        "bench", "release", "--db", str(db), "--bench", str(bench), "--out", str(out),
        "--require-review",
    )  # fmt: skip
    assert code == 0, stderr
    assert [t["id"] for t in read_tasks(out / bench.name)] == ids[:2]
    cond = json.loads((out / "conditions.json").read_text())
    assert cond["tasks"] == 2 and cond["require_review"] is True
    assert cond["review"]["protocol"] == "openscitoolbench"
    assert cond["review"]["status"] == dict.fromkeys(ids[:2], "approved")
    sheet = (out / "datasheet.md").read_text()
    assert "protocol: openscitoolbench" in sheet and "released: 2 items" in sheet

    code, stdout, stderr = run_main("bench", "report", "--db", str(db))
    assert code == 0, stderr
    assert "approved 2, rejected 0, sent-back 1, pending 0, unreviewed 1" in stdout
    code, stdout, _ = run_main("bench", "report", "--db", str(db), "--json")
    assert json.loads(stdout)["review"]["reviewed"] == 3


def test_bench_item_page_shows_the_executed_plan(bench_build: tuple[Path, Path]) -> None:
    import http.client

    from scigate.review import ReviewApp, serve_in_thread

    db, bench = bench_build
    task = read_tasks(bench)[0]
    app = ReviewApp(db, OPENSCITOOLBENCH, bench=bench)
    srv = serve_in_thread(app)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
        conn.request(
            "GET",
            f"/item/{task['id']}",
            headers={
                "Host": f"127.0.0.1:{app.port}",
                "Cookie": f"{app.cookie}={app.token}; {app.cookie}_name=Ada",
            },
        )
        res = conn.getresponse()
        html = res.read().decode()
    finally:
        srv.shutdown()
        srv.server_close()
    assert res.status == 200
    assert "gold (executed)" in html and "Tool plan" in html
    for run in task["plan"]["runs"]:
        for step in run["steps"]:
            assert f"<code>{step['tool']}</code>" in html
    assert "Level alignment" in html and "machine: accepted" in html


def test_bench_item_page_shows_the_solver_and_its_calls(tmp_path: Path) -> None:
    import http.client

    from scigate.review import ReviewApp, serve_in_thread

    scripted = Path(__file__).parents[1] / "agents" / "models" / "scripted.py"
    config = BuildConfig(
        n=1, levels=[1], formats=["question & answer"], domains=["chemistry"], seed=9,
        max_attempts=10, solver=f"python/{scripted}:policy",
    )  # fmt: skip
    report = build(config, tmp_path / "b.db", tmp_path / "b.jsonl")
    assert report.accepted == 1
    task = read_tasks(tmp_path / "b.jsonl")[0]
    with Store(tmp_path / "b.db") as store:
        (done,) = [a for a in store.attempts(report.run_id) if a["status"] == "accepted"]
        key = f"bench-build/{report.run_id}/{done['round']}/"
        calls = sum(
            (c["call_key"] or "").startswith(key)
            for c in store.model_calls(run_id=report.run_id, role="solver")
        )
    assert calls >= 1  # the accepted attempt's own calls, not those of rejected attempts
    app = ReviewApp(tmp_path / "b.db", OPENSCITOOLBENCH, bench=tmp_path / "b.jsonl")
    srv = serve_in_thread(app)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
        cookie = f"{app.cookie}={app.token}; {app.cookie}_name=Ada"
        conn.request(
            "GET",
            f"/item/{task['id']}",
            headers={"Host": f"127.0.0.1:{app.port}", "Cookie": cookie},
        )
        html = conn.getresponse().read().decode()
    finally:
        srv.shutdown()
        srv.server_close()
    assert "<h2>Solver</h2>" in html and "tool chain:" in html
    assert f"<summary>{calls} model calls</summary>" in html
