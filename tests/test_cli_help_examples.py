"""Every verb's `--help` ends with an example, and the example is a command line that
verb really parses (its options exist, its arguments fit)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from typer.main import get_command

from scigate.cli._app import app

ROOT = get_command(app).load_verbs()  # type: ignore[attr-defined]


def _tree(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        yield from _tree(sub, (*path, name))


COMMANDS = list(_tree(ROOT))


def _resolve(words: list[str]) -> tuple[tuple[str, ...], Any, list[str]]:
    """The command an argument list names, its path and the words left for it."""
    command, path = ROOT, ()
    while words and words[0] in (getattr(command, "commands", None) or {}):
        command, path = command.commands[words[0]], (*path, words[0])
        words = words[1:]
    return path, command, words


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[" ".join(p) or "scigate" for p, _ in COMMANDS]
)
def test_every_verb_has_an_example_it_parses(path: tuple[str, ...], command: Any) -> None:
    assert command.epilog and command.epilog.startswith("Example: scigate"), path
    words = shlex.split(command.epilog.removeprefix("Example: ").replace("\\[", "["))
    target, leaf, rest = _resolve(words[1:])
    assert target[: len(path)] == path and not getattr(leaf, "commands", None), (path, target)
    known = {opt for p in leaf.params for opt in (*p.opts, *p.secondary_opts)}
    assert {w for w in rest if w.startswith("-")} <= known, (path, rest)
    leaf.make_context(target[-1], list(rest), resilient_parsing=True)  # raises if unparsable


def test_help_shows_the_example() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "tools", "chain", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert "Example: scigate tools chain NameToSMILES,SMILESToWeight --input ethanol" in p.stdout
