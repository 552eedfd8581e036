"""Every verb that takes a model spec checks it before any work: a missing provider key,
python file or server address is one line, exit 2, and the run database is untouched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from _cli import run_main as _main


def _candidate(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "question.md").write_text("Compute 2/7 to six decimals.\n")
    (directory / "options.json").write_text(
        json.dumps({"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"})
    )
    (directory / "answer.txt").write_text("B\n")
    (directory / "solution.py").write_text("print(f'{2/7:.6f}')\n")
    return directory


def _snapshot(directory: Path) -> dict[str, str]:
    """Every file under `directory` (names and content hashes)."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _one_line_config_error(argv: list[str], what: str) -> None:
    code, _, err = _main(*argv)
    assert code == 2, (argv, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("scigate: error: ") and what in line, line


@pytest.fixture
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("SCIGATE_OPENAI_COMPATIBLE_BASE_URL", raising=False)


VERBS = [
    line.split()
    for line in (
        "gate screen {cand} --model {spec}",
        "gate solve {cand} --model {spec}",
        "gate run --db {db} --generator {spec} --rounds 1",
        "gate run --db {db} --generator templates --screen {spec}",
        "gate run --db {db} --generator templates --screen cue/middle --screen {spec}",
        "gate run --db {db} --generator templates --solver {spec}",
        "agent run --model {spec} --db {db} --method direct q",
        "agent eval --method direct --bench {bench} --model {spec} --db {db}",
        "agent eval --method direct --bench {bench} --model {ok} --judge {spec} --db {db}",
    )
]
SPECS = [
    ("openai/x", "OPENAI_API_KEY"),
    ("anthropic/x", "ANTHROPIC_API_KEY"),
    ("python/{tmp}/missing.py:f", "missing.py"),
    ("openai-compatible/qwen", "base_url"),
]


@pytest.mark.parametrize("argv", VERBS, ids=lambda a: " ".join(a[:2] + a[-4:-2]))
@pytest.mark.parametrize(("spec", "what"), SPECS, ids=[s for s, _ in SPECS])
def test_missing_configuration_is_exit_2_and_creates_no_database(
    tmp_path, no_keys, argv, spec, what
) -> None:
    cand = _candidate(tmp_path / "cand")
    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"question": "q", "answer": "a", "tools": []}) + "\n")
    db = tmp_path / "out" / "run.db"
    spec = spec.replace("{tmp}", str(tmp_path))
    (tmp_path / "ok.py").write_text("def f(messages, tools=None, **kw):\n    return 'a'\n")
    argv = [
        a.replace("{cand}", str(cand))
        .replace("{db}", str(db))
        .replace("{bench}", str(bench))
        .replace("{spec}", spec)
        .replace("{ok}", "python/{tmp}/ok.py:f")
        .replace("{tmp}", str(tmp_path))
        for a in argv
    ]
    before = _snapshot(tmp_path)
    _one_line_config_error(argv, what)
    assert not db.exists() and not db.parent.exists()
    assert _snapshot(tmp_path) == before


def _existing_db(tmp_path: Path, config: dict) -> Path:
    from scigate.gate._loop import LoopConfig
    from scigate.store import Store

    db = tmp_path / "run.db"
    store = Store(db)
    cfg = LoopConfig(generator="templates", rounds=1, **config)
    run_id = store.create_run("gate", domain="fenicsx", config=cfg.model_dump())
    store.set_run_status(run_id, "interrupted")
    store.close()
    return db


@pytest.mark.parametrize(
    "config", [{"screens": ["openai/x"]}, {"solver": "openai/x"}], ids=["screen", "solver"]
)
def test_resume_checks_the_stored_specs_and_leaves_the_database_unchanged(
    tmp_path, no_keys, config
) -> None:
    db = _existing_db(tmp_path, config)
    before = _snapshot(tmp_path)
    _one_line_config_error(["gate", "run", "--db", str(db), "--resume"], "OPENAI_API_KEY")
    assert _snapshot(tmp_path) == before


def test_rescreen_checks_its_specs_and_leaves_the_database_unchanged(tmp_path, no_keys) -> None:
    db = _existing_db(tmp_path, {"screens": ["cue/middle"]})
    before = _snapshot(tmp_path)
    _one_line_config_error(
        ["gate", "run", "--db", str(db), "--rescreen", "--screen", "openai/x"], "OPENAI_API_KEY"
    )
    assert _snapshot(tmp_path) == before


def test_demo_checks_its_solver(tmp_path, no_keys) -> None:
    out = tmp_path / "demo"
    _one_line_config_error(
        ["demo", "--out", str(out), "--rounds", "1", "--solver", "openai/x"], "OPENAI_API_KEY"
    )
    assert not out.exists()


def test_the_check_is_not_vacuous_with_a_key(tmp_path, monkeypatch) -> None:
    """With the key set the same spec gets past the configuration check (the screen then
    fails at the network, which is a different, later error)."""
    from scigate.llm import check_spec

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    assert check_spec("openai/x").model == "x"


def test_tools_search_checks_its_embedder(no_keys) -> None:
    _one_line_config_error(["tools", "search", "q", "--embedder", "openai/x"], "OPENAI_API_KEY")
