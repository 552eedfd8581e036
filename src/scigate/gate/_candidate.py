"""The candidate directory: question.md, options.json, answer.txt, solution.py, meta.json."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scigate.errors import BadInput
from scigate.gate._values import options_distinct

LETTERS = ("A", "B", "C", "D")

# Files that record the proposal or the generator's notes (distractor provenance, the
# intended answer). They stay in the candidate directory and the run database and never
# reach a verification, invariance or solver workspace: a solution that could read them
# would reproduce the proposal without computing it. Matched at any depth, globs allowed.
PRIVATE_FILES = ("answer.txt", "meta.json", "notes*", "NOTES*", "*.notes", "__pycache__")


class Candidate(BaseModel):
    """One ToolGate item: public question and options, proposed answer, solution script."""

    question: str
    options: dict[str, str]
    answer: str | None = None
    solution: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)
    path: Path | None = None
    stored_id: str | None = Field(default=None, exclude=True)  # the record's id, when loaded

    @property
    def id(self) -> str:
        """Content address of question, options, proposal and solution.

        A repeat of a question with another proposal or solution is its own record and is
        gated on its own; the store still links it to the first by `duplicate_of`.
        """
        if self.stored_id:
            return self.stored_id
        return candidate_identity(self.question, self.options, self.answer, self.solution)

    @property
    def answer_value(self) -> str | None:
        return self.options.get(self.answer) if self.answer else None

    def public_files(self) -> dict[str, str]:
        """What a screen or solver may see: the question and the options."""
        return {
            "question.md": self.question.rstrip() + "\n",
            "options.json": json.dumps(self.options, indent=2) + "\n",
        }

    def write(
        self, directory: Path, *, include_answer: bool = True, include_meta: bool = True
    ) -> Path:
        """Write the candidate as a directory (answer.txt and meta.json only when asked)."""
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in self.public_files().items():
            (directory / name).write_text(text)
        if self.solution:
            (directory / "solution.py").write_text(self.solution)
        if include_answer and self.answer:
            (directory / "answer.txt").write_text(self.answer + "\n")
        if include_meta and self.meta:
            (directory / "meta.json").write_text(json.dumps(self.meta, indent=2) + "\n")
        return directory


def candidate_identity(
    question: str, options: dict[str, str], answer: str | None, solution: str
) -> str:
    """16 hex chars of sha256 over the canonical JSON of the four parts."""
    canonical = json.dumps(
        {
            "question": question.strip(),
            "options": dict(sorted(options.items())),
            "answer": (answer or "").strip().upper(),
            "solution": solution.strip(),
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def load_candidate(
    path: str | Path, *, require_answer: bool = True, require_solution: bool = True
) -> Candidate:
    """Read and validate a candidate directory; malformed candidates raise `BadInput`."""
    d = Path(path)
    if not d.exists():
        raise BadInput(f"candidate directory not found: {d}")
    if not d.is_dir():
        raise BadInput(f"not a directory: {d}")
    needed = ["question.md", "options.json"]
    if require_answer:
        needed.append("answer.txt")
    if require_solution:
        needed.append("solution.py")
    missing = [n for n in needed if not (d / n).is_file()]
    if missing:
        raise BadInput(f"candidate {d} is missing {', '.join(missing)}")
    question = _read(d / "question.md").strip()
    if not question:
        raise BadInput(f"candidate {d}: question.md is empty")
    options = parse_options(_read(d / "options.json"), where=f"candidate {d}: options.json")
    answer = None
    if (d / "answer.txt").is_file():
        answer = parse_answer_letter(_read(d / "answer.txt"), where=f"candidate {d}: answer.txt")
    elif require_answer:  # pragma: no cover - caught above
        raise BadInput(f"candidate {d} is missing answer.txt")
    solution = _read(d / "solution.py") if (d / "solution.py").is_file() else ""
    meta: dict[str, Any] = {}
    if (d / "meta.json").is_file():
        try:
            meta = json.loads(_read(d / "meta.json"))
        except json.JSONDecodeError as exc:
            raise BadInput(f"candidate {d}: meta.json is not valid JSON ({exc.msg})") from exc
        if not isinstance(meta, dict):
            raise BadInput(f"candidate {d}: meta.json must hold a JSON object")
    return Candidate(
        question=question, options=options, answer=answer, solution=solution, meta=meta, path=d
    )


def parse_options(text: str, *, where: str = "options.json") -> dict[str, str]:
    """Exactly four distinct options keyed A-D, values as strings."""
    try:
        raw = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    except _DuplicateKey as exc:
        raise BadInput(f"{where} gives the key {exc.args[0]!r} twice") from None
    if not isinstance(raw, dict):
        raise BadInput(f"{where} must be a JSON object mapping letters A-D to options")
    if len(raw) != 4:
        raise BadInput(f"{where} has {len(raw)} options; exactly four (A, B, C, D) are required")
    if sorted(raw) != list(LETTERS):
        raise BadInput(f"{where} keys are {', '.join(sorted(raw))}; expected A, B, C, D")
    options: dict[str, str] = {}
    for letter in LETTERS:
        value = raw[letter]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise BadInput(f"{where}: option {letter} must be a string or a number")
        value = str(value).strip()
        if not value:
            raise BadInput(f"{where}: option {letter} is empty")
        options[letter] = value
    dups = options_distinct(options)
    if dups:
        a, b = dups[0]
        raise BadInput(f"{where}: options {a} and {b} have the same value ({options[a]})")
    return options


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object hook that refuses a repeated key (json keeps the last one silently)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def parse_answer_letter(text: str, *, where: str = "answer.txt") -> str:
    """The proposed letter from answer.txt ('B', '(B)', 'B) ...', 'Answer: B')."""
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    m = re.fullmatch(r"(?:answer\s*[:=]?\s*)?\(?([A-Da-d])\)?[.):]?(?:\s.*)?", first, re.IGNORECASE)
    if not m:
        raise BadInput(f"{where} holds no option letter (A-D): {first[:40]!r}")
    return m.group(1).upper()


def copy_without_answer(src: Path, dest: Path) -> Path:
    """Copy a candidate directory for verification, leaving out answer.txt and the notes."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*PRIVATE_FILES))
    return dest


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path}: {exc}") from exc
