"""The candidate directory: question.md, options.json, answer.txt, solution.py, meta.json."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import secrets
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from scigate.errors import BadInput
from scigate.gate._values import options_distinct
from scigate.sandbox import UnsafeWorkspaceFile, copy_tree, open_dir, read_text_if_exists

LETTERS = ("A", "B", "C", "D")

# Files that record the proposal or the generator's notes (distractor provenance, the
# intended answer). They stay in the candidate directory and the run database and never
# reach a verification, invariance or solver workspace: a solution that could read them
# would reproduce the proposal without computing it. Matched at any depth, globs allowed.
PRIVATE_FILES = ("answer.txt", "meta.json", "notes*", "NOTES*", "*.notes", "__pycache__")

#: The largest candidate file read (bytes): a generator that writes a 50 MiB question is
#: refused, not stored. Read without following links, regular files only.
FILE_LIMITS = {
    "question.md": 64 << 10,
    "options.json": 16 << 10,
    "answer.txt": 1 << 10,
    "solution.py": 256 << 10,
    "meta.json": 64 << 10,
}
#: Caps on copying a candidate directory (its data files included) for a run.
COPY_FILE_LIMIT = 64 << 20
COPY_TOTAL_LIMIT = 256 << 20
COPY_MAX_ENTRIES = 2_000


# this process's secret for candidates' forms scopes (`Candidate.forms_scope`): never
# written anywhere a run could read it, so no run can compute another candidate's scope
_SCOPE_SECRET = secrets.token_bytes(32)
# the template generators' own ids (`scigate.<domain>.templates/<version>`), as the
# candidates they write name them; the gate loop names them "templates"
TEMPLATE_GENERATOR = re.compile(r"scigate\.\w+\.templates/\d+")


class Candidate(BaseModel):
    """One ToolGate item: public question and options, proposed answer, solution script."""

    question: str
    options: dict[str, str]
    answer: str | None = None
    solution: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)
    path: Path | None = None
    stored_id: str | None = Field(default=None, exclude=True)  # the record's id, when loaded
    # the forms scope of the generator episode that wrote it (never stored or exported):
    # its gate-1 run loads the forms that episode's runs had compiled (`verify`)
    _forms_scope: str | None = PrivateAttr(default=None)

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
    def forms_scope(self) -> str:
        """The forms scope of this candidate's own runs (gates 1 and 1b, in this
        process): its LLM generator episode's, else a keyed hash of its id, so its
        re-runs share compiled forms with each other and with no other candidate's.
        Template candidates (our own code, written by the template generator) share one
        scope: their checks' forms, the same C text across a family, compile once."""
        if self._forms_scope:
            return self._forms_scope
        generator = str(self.meta.get("generator") or "")
        template = generator == "templates" or TEMPLATE_GENERATOR.fullmatch(generator)
        owner = "templates" if template else f"id:{self.id}"
        return hmac.new(_SCOPE_SECRET, owner.encode(), hashlib.sha256).hexdigest()[:32]

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
    path: str | Path,
    *,
    require_answer: bool = True,
    require_solution: bool = True,
    within: Path | None = None,
) -> Candidate:
    """Read and validate a candidate directory; malformed candidates raise `BadInput`.

    The files are read without following links: a symlink, FIFO, device or a file over
    its `FILE_LIMITS` size raises `UnsafeWorkspaceFile` ("candidate file question.md is a
    symlink"). `within` is the directory `path` lies in when a sandboxed party wrote it (a
    generator's workspace): then `path` itself and every directory between may not be
    links either; without it `path` is the user's own and is followed like any path.
    """
    d = Path(path)
    if within is None:
        if not d.exists():
            raise BadInput(f"candidate directory not found: {d}")
        if not d.is_dir():
            raise BadInput(f"not a directory: {d}")
        try:
            dir_fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise BadInput(f"cannot read {d}: {exc.strerror}") from None
    else:
        try:
            rel = d.relative_to(within)
            dir_fd = open_dir(within, rel, what="candidate directory")
        except ValueError:
            raise BadInput(f"candidate directory {d} is not inside {within}") from None
        except FileNotFoundError:
            raise BadInput(f"candidate directory not found: {d}") from None
    try:
        texts = {name: _read(dir_fd, name, d if within is None else None) for name in FILE_LIMITS}
    finally:
        os.close(dir_fd)
    needed = ["question.md", "options.json"]
    if require_answer:
        needed.append("answer.txt")
    if require_solution:
        needed.append("solution.py")
    missing = [n for n in needed if texts[n] is None]
    if missing:
        raise BadInput(f"candidate {d} is missing {', '.join(missing)}")
    question = (texts["question.md"] or "").strip()
    if not question:
        raise BadInput(f"candidate {d}: question.md is empty")
    options = parse_options(texts["options.json"] or "", where=f"candidate {d}: options.json")
    answer = None
    if texts["answer.txt"] is not None:
        answer = parse_answer_letter(texts["answer.txt"], where=f"candidate {d}: answer.txt")
    solution = texts["solution.py"] or ""
    meta: dict[str, Any] = {}
    if texts["meta.json"] is not None:
        try:
            meta = json.loads(texts["meta.json"])
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
        if _non_finite(value):
            raise BadInput(
                f"{where}: option {letter} is {str(value).strip()!r}, not a finite value"
            )
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


def _non_finite(value: str | int | float) -> bool:
    """NaN or an infinity, as a JSON number (NaN, Infinity, 1e999) or a string ("nan",
    "-inf", "Infinity"): no computation can be checked against such an option."""
    if isinstance(value, int):
        return False
    try:
        number = float(value.strip().replace("\u2212", "-")) if isinstance(value, str) else value
    except ValueError:
        return False
    return not math.isfinite(number)


def parse_answer_letter(text: str, *, where: str = "answer.txt") -> str:
    """The proposed letter from answer.txt ('B', '(B)', 'B) ...', 'Answer: B')."""
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    m = re.fullmatch(r"(?:answer\s*[:=]?\s*)?\(?([A-Da-d])\)?[.):]?(?:\s.*)?", first, re.IGNORECASE)
    if not m:
        raise BadInput(f"{where} holds no option letter (A-D): {first[:40]!r}")
    return m.group(1).upper()


def copy_without_answer(src: Path, dest: Path) -> Path:
    """Copy a candidate directory for verification, leaving out answer.txt and the notes.

    Nothing is followed: a link, FIFO or device in the candidate, a file over 64 MiB, more
    than 256 MiB or 2,000 entries raise `UnsafeWorkspaceFile`."""
    copy_candidate_tree(src, dest, exclude=PRIVATE_FILES)
    return dest


def copy_candidate_tree(src: Path, dest: Path, *, exclude: tuple[str, ...] = ()) -> None:
    """Copy the candidate directory `src` into `dest` with `copy_tree`'s no-follow rules
    and the candidate caps (`COPY_*`); a refused entry names the candidate."""
    try:
        copy_tree(
            src,
            dest,
            exclude=exclude,
            file_limit=COPY_FILE_LIMIT,
            total_limit=COPY_TOTAL_LIMIT,
            max_entries=COPY_MAX_ENTRIES,
            what="candidate file",
        )
    except UnsafeWorkspaceFile as exc:
        raise UnsafeWorkspaceFile(f"{exc} (in {src})", name=exc.name, problem=exc.problem) from None


def _read(dir_fd: int, name: str, shown: Path | None) -> str | None:
    """A candidate file's text, or None when missing; `shown`: the directory to name."""
    try:
        return read_text_if_exists(dir_fd, name, limit=FILE_LIMITS[name], what="candidate file")
    except UnsafeWorkspaceFile as exc:
        if shown is None:
            raise
        raise UnsafeWorkspaceFile(
            f"{exc} (in {shown})", name=exc.name, problem=exc.problem
        ) from None
