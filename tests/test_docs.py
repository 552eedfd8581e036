"""The README and docs say what the code does: their figures are the library's, their
links stay inside the repository, the license is the one pyproject.toml states."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# the written pages (docs/reference/ is generated from the code by `make docs`)
DOCS = [
    README,
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "reference" not in p.parts),
]


def _text() -> str:
    """The README and every written docs page, as one text."""
    return "\n".join(p.read_text() for p in DOCS)


@pytest.fixture(scope="module")
def figures() -> dict[str, int]:
    """The counts the README quotes, from the code."""
    from scigate.tools._coverage import coverage, read_catalogue
    from scigate.tools._library import load_library

    library = load_library()
    report = coverage(read_catalogue(), library)
    return {
        "tools": len(library),
        "offline": sum(1 for t in library.values() if not t.spec.network),
        "implemented": report["implemented"],
        "catalogue": report["catalogue_tools"],
    }


def _quoted(pattern: str, text: str) -> tuple[int, ...]:
    found = re.search(pattern, text)
    assert found, f"the README no longer says {pattern!r}: update this test with it"
    return tuple(int(g) for g in found.groups())


def test_readme_tool_counts_are_the_librarys(figures: dict[str, int]) -> None:
    text = _text()
    assert _quoted(r"a library of (\d+) executable tools \((\d+) offline\)", text) == (
        figures["tools"],
        figures["offline"],
    )
    assert _quoted(r"\((\d+) of its (\d+) tools are implemented\)", text) == (
        figures["implemented"],
        figures["catalogue"],
    )
    assert _quoted(r"bundled SciToolKG catalogue \((\d+) tools\)", text) == (figures["catalogue"],)


def _links(text: str) -> list[str]:
    """Markdown link targets and autolinks."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    targets += re.findall(r"<(https?://[^>]+)>", text)
    return targets


# the reference pages scripts/gen_reference.py writes
GENERATED = set(
    re.findall(r'\("(\w+\.md)", \w+_page\)', (ROOT / "scripts" / "gen_reference.py").read_text())
)


def test_the_generated_reference_pages_are_known() -> None:
    assert {"cli.md", "api.md", "tools.md"} == GENERATED


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_stay_inside_the_repository(doc: Path) -> None:
    text = doc.read_text()
    assert "../shared" not in text and "/work/" not in text
    for target in _links(text):
        if target.startswith("#"):
            continue
        assert not re.match(r"[a-z]+:", target), f"{doc.name} links outside: {target}"
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT), f"{doc.name} links outside the repository: {target}"
        if path.parent == ROOT / "docs" / "reference" and path.name in GENERATED:
            continue  # written by `make docs`, absent from a checkout that has not built them
        assert path.exists(), f"{doc.name} links to a missing file: {target}"


def test_license_file_is_the_one_pyproject_states() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_all_extra_holds_every_extra_the_readme_offers() -> None:
    """`pip install -e '.[all]'  # or pick extras:` — each extra listed is in `all`."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    offered = set(re.findall(r"pip install -e '\.\[([a-z]+)\]'", _text())) - {"all"}
    assert offered and offered <= set(extras)
    (everything,) = extras["all"]
    in_all = set(re.fullmatch(r"scigate\[([a-z,]+)\]", everything).group(1).split(","))
    assert offered <= in_all, offered - in_all
