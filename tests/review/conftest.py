"""Fixtures for the review tests: the hand-made gate database with reviewers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from gate._dbfactory import build_db
from scigate.review import TOOLGATE, Protocol
from scigate.store import Store

REVIEWERS = ("Ada", "Bo", "Cy")


@pytest.fixture(scope="session")
def _gate_db_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("review-template") / "runs.db"
    store, ids = build_db(path)
    for name in REVIEWERS:
        store.add_reviewer(name)
    store.close()
    return path, ids


@pytest.fixture
def gate_db(_gate_db_template: tuple[Path, list[str]], tmp_path: Path) -> tuple[Path, list[str]]:
    """A fresh copy of the hand-made gate database (reviewers Ada, Bo, Cy) and c0..c10's ids."""
    src, ids = _gate_db_template
    dest = tmp_path / "runs.db"
    shutil.copy(src, dest)
    return dest, ids


def vote(
    store: Store,
    item: str,
    reviewer: str,
    verdicts: dict[str, str] | str,
    protocol: Protocol = TOOLGATE,
    kind: str = "candidate",
) -> None:
    """Store one reviewer's verdicts on an item (a single verdict string: every criterion)."""
    if isinstance(verdicts, str):
        verdicts = dict.fromkeys(protocol.criterion_keys(), verdicts)
    rows: list[dict[str, Any]] = [
        {
            "item_id": item,
            "item_kind": kind,
            "protocol": protocol.name,
            "reviewer": reviewer,
            "criterion": k,
            "verdict": v,
        }
        for k, v in verdicts.items()
    ]
    store.save_reviews(rows)
