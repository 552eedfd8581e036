"""Known-bad values of every string input type make every tool answer ok: false."""

from __future__ import annotations

import httpx
import pytest

from scigate.tools import VOCABULARY, load_library
from scigate.tools._vocabulary import example_arguments, parameter_types

TOOLS = load_library()


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for name in sorted(TOOLS):
        for param, type_name in parameter_types(TOOLS[name]).items():
            term = VOCABULARY.get(type_name)
            if term is not None and term.kind == "string" and term.bad_examples:
                cases.append((name, param, type_name))
    return cases


CASES = _cases()


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("offline (test)", request=request)

    class OfflineClient(httpx.Client):
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            kwargs["transport"] = httpx.MockTransport(refuse)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(httpx, "Client", OfflineClient)


# Tools that accept a value the vocabulary calls bad, with the reason; strict xfail, so a
# fix shows up as XPASS and the entry must then be removed.
KNOWN_LENIENT = {
    ("HasQueryHs", "smiles"): "declared SMILES but parsed as SMARTS, so valence is not checked",
}


def _is_validity_check(name: str) -> bool:
    # validators (IsValidInChIKey...) rightly answer False to a bad value
    return "valid" in name.lower() or name.lower().startswith(("check", "test"))


def test_there_are_cases() -> None:
    assert len(CASES) > 10


def _accepted(name: str, param: str, type_name: str) -> list[str]:
    """Bad values the tool accepted; asserts failures carry an error naming the tool."""
    t = TOOLS[name]
    base = example_arguments(t) or {}
    accepted = []
    for bad in VOCABULARY.get(type_name).bad_examples:  # type: ignore[union-attr]
        result = t.call({**base, param: bad})
        if result.ok and _is_validity_check(name) and result.value is False:
            continue
        if result.ok:
            accepted.append(f"{bad!r} -> {result.value!r}")
        else:
            assert result.error and result.error.startswith(name), result.error
    return accepted


@pytest.mark.parametrize(("name", "param", "type_name"), CASES)
def test_bad_values_fail_cleanly(name: str, param: str, type_name: str) -> None:
    t = TOOLS[name]
    if not t.available():
        pytest.skip(f"{name} needs {t.spec.requires}")
    accepted = _accepted(name, param, type_name)
    if (name, param) in KNOWN_LENIENT:
        if not accepted:
            pytest.fail(f"{name}.{param} now rejects bad input: remove it from KNOWN_LENIENT")
        pytest.xfail(KNOWN_LENIENT[(name, param)])
    assert not accepted, f"{name}({param}=...) accepted bad values: {accepted}"


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_missing_and_unknown_arguments_fail_cleanly(name: str) -> None:
    t = TOOLS[name]
    result = t.call({"no_such_argument": 1})
    assert not result.ok and "unknown argument" in (result.error or "")
    if t.required_parameters:
        result = t.call({})
        assert not result.ok and "missing argument" in (result.error or "")
