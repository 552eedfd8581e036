"""Attacks on the shared compiled-form cache, end to end under bubblewrap.

The cache (`$SCIGATE_CACHE_DIR/forms`, `_formcache`) lets every run load a module that
a trusted step compiled from the C text the run itself generated (`_formhook`). A
candidate may try to write into it, to get its own C text stored under the key of
another candidate's form, or a poisoned module may sit in an entry, or a run may look
for entries another run left to learn what it computed. Each attack uses a form whose
answer doubles when its quadrature weights are doubled (9 -> 18), or forms whose C text
carries a chosen number, and each defence has a control showing the attack would be
seen if it got through."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from pathlib import Path

import pytest

from scigate.sandbox import (
    _formcache,
    _isolation,
    arun_python,
    default_cache_dir,
    form_map_env,
    fresh_workspace,
    new_forms_scope,
    run_python,
)

ISOLATED = _isolation.bwrap_status()[0] is not None
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ISOLATED, reason="bwrap cannot isolate here"),
]
PRELOAD = ("dolfinx_solver", "dolfinx", "dolfinx.fem.petsc", "ufl", "basix")
MODES = pytest.mark.parametrize("preload", [PRELOAD, ()], ids=["warm", "cold"])

VICTIM = textwrap.dedent(
    """
    import sys
    import dolfinx_solver  # noqa: F401
    import ufl
    from dolfinx import fem, mesh
    from mpi4py import MPI

    msh = mesh.create_unit_square(MPI.COMM_WORLD, 4, 4)
    c = fem.Constant(msh, 3.0)
    print(f"{fem.assemble_scalar(fem.form(c * c * ufl.dx(domain=msh))):.6f}")
    print(sys.modules["_scigate_formhook"].STATS)
    """
)
WEIGHTS = r"(static const double weights_\w+\[\d+\] = \{)([^}]*)"


def double_weights(c_text: bytes) -> bytes:
    """The same C module with every quadrature weight doubled."""
    text = c_text.decode()

    def scale(m: re.Match[str]) -> str:
        return m.group(1) + ",".join(str(2 * float(v)) for v in m.group(2).split(","))

    poisoned = re.sub(WEIGHTS, scale, text)
    assert poisoned != text
    return poisoned.encode()


# the attacker controls its own hook: it submits poisoned C text claiming the key of
# the form it generated (the key a victim with the same form computes), then the same
# text under its true hash, and compiles privately
ATTACKER = (
    textwrap.dedent(
        r"""
        import os, re, sys
        import dolfinx_solver  # noqa: F401
        import ffcx.codegeneration.jit  # loads the hook (cold runs: on this import)
        hook = sys.modules["_scigate_formhook"]
        real_ask = hook._ask_host
        verdicts = []
        pattern = re.compile(rb"(static const double weights_\w+\[\d+\] = \{)([^}]*)")

        def scale(m):
            return m.group(1) + b",".join(str(2 * float(v)).encode() for v in m.group(2).split(b","))

        def evil(spool, key, module_name, flags, c_text):
            bad = pattern.sub(scale, c_text)
            if bad != c_text:
                verdicts.append(("claimed", key, real_ask(spool, key, module_name, flags, bad)))
                own = hook.form_key(bad, module_name, flags, os.environ["SCIGATE_FORM_SCOPE"])
                verdicts.append(("own", own, real_ask(spool, own, module_name, flags, bad)))
            return False

        hook._ask_host = evil
        """
    )
    + VICTIM
    + "print(verdicts)\n"
)


def _run(code: str, preload: tuple[str, ...], scope: str | None = None) -> list[str]:
    """The printed lines of a run of `code` (sharing forms with runs of `scope`)."""
    ws = fresh_workspace(parent=default_cache_dir().parent)
    result = run_python(code, workspace=ws, preload=preload, forms_scope=scope)
    assert result.ok, (result.reason, result.stderr[-2000:])
    return result.stdout.splitlines()


def _stats(line: str) -> dict:
    return json.loads(line.replace("'", '"'))


def _forms() -> Path:
    return _formcache.forms_dir(default_cache_dir().resolve())


def _entries() -> dict[str, dict]:
    root = _forms()
    return {p.name: json.loads((p / "meta.json").read_text()) for p in root.glob("[0-9a-f]*")}


@MODES
def test_a_later_run_loads_what_a_trusted_step_compiled_for_an_earlier_one(preload) -> None:
    """Runs of one scope (one candidate's, one agent episode's) share compiled forms; a
    run of another scope compiles its own."""
    scope = new_forms_scope()
    first = _run(VICTIM, preload, scope)
    assert first[0] == "9.000000"
    assert _stats(first[1])["compiled"] >= 1 and _stats(first[1])["private"] == 0
    second = _run(VICTIM, preload, scope)  # another workspace, the same scope
    assert second[0] == "9.000000"
    assert _stats(second[1]) == {
        "hits": _stats(first[1])["compiled"],
        "compiled": 0,
        "private": 0,
        "mapped": 0,
    }
    other = _run(VICTIM, preload)  # a scope of its own (the default)
    assert other[0] == "9.000000"
    assert _stats(other[1])["hits"] == 0 and _stats(other[1])["compiled"] >= 1


async def test_an_agent_episodes_runs_share_their_forms() -> None:
    """`arun_python` calls given one scope (the coding agent gives each episode one)."""
    scope = new_forms_scope()
    seen = []
    for _ in range(2):
        ws = fresh_workspace(parent=default_cache_dir().parent)
        result = await arun_python(VICTIM, workspace=ws, preload=PRELOAD, forms_scope=scope)
        assert result.ok, result.stderr[-2000:]
        seen.append(_stats(result.stdout.splitlines()[1]))
    assert seen[0]["compiled"] >= 1
    assert seen[1] == {"hits": seen[0]["compiled"], "compiled": 0, "private": 0, "mapped": 0}


@pytest.mark.parametrize("bind", ["--ro-bind", "--bind"], ids=["read-only", "control"])
def test_a_run_cannot_write_into_the_forms_cache(bind, monkeypatch) -> None:
    monkeypatch.setattr(_isolation, "CACHE_BIND", bind)
    assert _run(VICTIM, PRELOAD)[0] == "9.000000"
    key = next(iter(_entries()))
    module = _forms() / key / "module.so"
    before = module.read_bytes()
    attack = textwrap.dedent(
        f"""
        import os
        for path in ({str(module)!r}, {str(_forms() / ("0" * 64))!r}):
            try:
                if path.endswith(".so"):
                    os.chmod(path, 0o644)
                    open(path, "wb").write(b"planted")
                else:
                    os.mkdir(path)
                print("planted", path)
            except OSError as exc:
                print("refused", path, exc.strerror)
        """
    )
    out = _run(attack, PRELOAD)
    if bind == "--ro-bind":
        assert all(line.startswith("refused") and "Read-only" in line for line in out), out
        assert module.read_bytes() == before
    else:  # the control: the same attack on a writable cache plants the module
        assert all(line.startswith("planted") for line in out), out
        assert module.read_bytes() == b"planted"


@MODES
def test_c_text_submitted_under_another_key_is_never_stored_under_it(preload) -> None:
    scope = new_forms_scope()  # attacker and victim in one scope: the worst case
    out = _run(ATTACKER, preload, scope)
    assert out[0] == "9.000000"  # it compiled its own form privately
    verdicts = eval(out[-1])  # [(what, key, compiled), ...]
    claimed = [(key, ok) for what, key, ok in verdicts if what == "claimed"]
    own = [(key, ok) for what, key, ok in verdicts if what == "own"]
    assert claimed and not any(ok for _, ok in claimed)  # refused by the host
    assert own and all(ok for _, ok in own)  # its own hash: stored, harmless
    stored = _entries()
    assert not {key for key, _ in claimed} & set(stored)
    victim = _run(VICTIM, preload, scope)
    assert victim[0] == "9.000000"
    assert _stats(victim[1])["compiled"] >= 1  # nothing was there to hit
    for key, _ in claimed:  # now stored, from the victim's own text
        source = (_forms() / key / "source.c").read_bytes()
        assert double_weights(source) != source and b"weights_" in source


@pytest.mark.parametrize("consistent", [False, True], ids=["poisoned", "control"])
def test_a_poisoned_entry_is_never_loaded(consistent) -> None:
    scope = new_forms_scope()
    before = set(_entries())
    assert _run(VICTIM, PRELOAD, scope)[0] == "9.000000"
    entries = {k: v for k, v in _entries().items() if k not in before}
    assert entries
    for key, meta in entries.items():
        entry = _forms() / key
        source = (entry / "source.c").read_bytes()
        if b"weights_" not in source:
            continue
        bad = _formcache.compile_trusted(double_weights(source), meta["flags"])
        (entry / "module.so").chmod(0o644)
        (entry / "module.so").write_bytes(bad)
        if consistent:  # what only the trusted store could write: its record updated
            meta["so_sha256"] = hashlib.sha256(bad).hexdigest()
            (entry / "meta.json").chmod(0o644)
            (entry / "meta.json").write_text(json.dumps(meta))
    again = _run(VICTIM, PRELOAD, scope)
    if consistent:  # the control: an entry that checks out is loaded as it is
        assert again[0] == "18.000000"
    else:
        assert again[0] == "9.000000"
        assert _stats(again[1])["compiled"] >= 1  # compiled again by the trusted step


# VICTIM, counting FFCx's code generation (`_compile_objects`: C text, then the compile)
COUNTED = (
    textwrap.dedent(
        """
        import ffcx.codegeneration.jit as _jit
        _generated = []
        _generate = _jit._compile_objects

        def _counting(*args, **kwargs):
            _generated.append(args[3])  # the module name
            return _generate(*args, **kwargs)

        _jit._compile_objects = _counting
        """
    )
    + VICTIM
    + "print(len(_generated))\n"
)


def _result(code: str, preload: tuple[str, ...], forms: dict[str, str] | None = None):
    ws = fresh_workspace(parent=default_cache_dir().parent)
    result = run_python(code, workspace=ws, preload=preload, env=form_map_env(forms))
    assert result.ok, (result.reason, result.stderr[-2000:])
    return result, result.stdout.splitlines()


@MODES
def test_a_later_run_given_its_form_map_generates_no_c(preload) -> None:
    """Gate 1b's checks get the form map of the candidate's gate-1 run: FFCx finds each
    module staged in its cache and generates no C text at all (no hit, no request, no
    private compile), and the answer is the one gate 1 printed."""
    first, out = _result(COUNTED, preload)
    assert out[0] == "9.000000" and int(out[2]) >= 1
    entries = _entries()
    assert first.forms and all(entries[k]["module_name"] == m for m, k in first.forms.items())
    second, again = _result(COUNTED, preload, first.forms)
    assert again[0] == "9.000000"
    assert int(again[2]) == 0  # no code generation
    assert _stats(again[1]) == {"hits": 0, "compiled": 0, "private": 0, "mapped": len(first.forms)}
    assert second.forms == first.forms  # noted again: the entries' LRU stamps
    _, control = _result(COUNTED, preload)  # the control: no map, C generated again
    assert control[0] == "9.000000" and int(control[2]) == int(out[2])


# an attacker plants doubled weights under its own hash (the host stores that) and notes
# it as the module its form needs, so its own form map names the poisoned entry
PLANTER = (
    textwrap.dedent(
        r"""
        import os, re, sys
        import dolfinx_solver  # noqa: F401
        import ffcx.codegeneration.jit  # loads the hook (cold runs: on this import)
        hook = sys.modules["_scigate_formhook"]
        real_ask = hook._ask_host
        pattern = re.compile(rb"(static const double weights_\w+\[\d+\] = \{)([^}]*)")

        def scale(m):
            return m.group(1) + b",".join(str(2 * float(v)).encode() for v in m.group(2).split(b","))

        def evil(spool, key, module_name, flags, c_text):
            bad = pattern.sub(scale, c_text)
            own = hook.form_key(bad, module_name, flags, os.environ["SCIGATE_FORM_SCOPE"])
            if real_ask(spool, own, module_name, flags, bad):
                hook._note_hit(spool, own, module_name)
            return False

        hook._ask_host = evil
        """
    )
    + VICTIM
)


def test_a_form_map_reaches_only_the_candidate_that_claimed_it() -> None:
    """A candidate can put a poisoned entry in its own form map, and so make its own
    gate-1b runs load it (18, where its gate 1 printed 9: gate 1b rejects it). A victim
    with the same form gets its map from its own run, which names the entry compiled
    from its own C text. The control shows why a map is never handed to another
    candidate: the attacker's map makes the victim print 18."""
    attacker, out = _result(PLANTER, PRELOAD)
    assert out[0] == "9.000000"  # compiled privately from its honest text
    assert attacker.forms
    victim, first = _result(VICTIM, PRELOAD)
    assert first[0] == "9.000000"
    assert set(victim.forms) == set(attacker.forms)  # the same form, the same module name
    assert not set(victim.forms.values()) & set(attacker.forms.values())
    assert _result(VICTIM, PRELOAD, victim.forms)[1][0] == "9.000000"
    assert _result(VICTIM, PRELOAD, attacker.forms)[1][0] == "18.000000"  # the control


MODULE = "libffcx_forms_" + "ab" * 20
FLAGS = {"extra_compile_args": ["-O2", "-g0"], "libraries": ["m"], "debug": False}


@pytest.mark.parametrize("how", ["warm", "cold", "control"])
def test_a_trusted_compile_cannot_read_the_hosts_files(how, tmp_path, monkeypatch) -> None:
    """The trusted compile runs the C compiler on a candidate's C text: forked from a
    warm server (the default) or in a fresh sandbox, an `#include` of a host file finds
    nothing. The control, the same command outside the sandbox, embeds the file."""
    secret = tmp_path / "secret.h"
    secret.write_text('const char leaked[] = "HOST-SECRET-7431";\n')
    c_text = f'#include "{secret}"\nvoid *PyInit_{MODULE}(void) {{ return (void *)leaked; }}\n'
    if how == "control":
        work = tmp_path / "work"
        work.mkdir()
        (work / "source.c").write_text(c_text)
        import subprocess

        subprocess.run(_formcache.compile_command(FLAGS), cwd=work, check=True)
        assert b"HOST-SECRET-7431" in (work / "module.so").read_bytes()
        return
    warm_runs: list[tuple] = []
    if how == "cold":
        monkeypatch.setattr(_formcache, "_execute_warm", None)
    else:
        real = _formcache._execute_warm
        assert real is not None  # registered by the warm runner: the default

        def counted(*args, **kwargs):
            warm_runs.append(kwargs["preload"])
            return real(*args, **kwargs)

        monkeypatch.setattr(_formcache, "_execute_warm", counted)
    with pytest.raises(RuntimeError, match="the C compiler failed"):
        _formcache.compile_trusted(c_text.encode(), FLAGS)
    # and the same runner compiles a text that needs nothing of the host
    clean = f"void *PyInit_{MODULE}(void) {{ return 0; }}\n".encode()
    assert _formcache.compile_trusted(clean, FLAGS).startswith(b"\x7fELF")
    assert len(warm_runs) == (2 if how == "warm" else 0)


def _snoop(key: str) -> str:
    """A run that lists the forms directory, reads the entry of a key it knows, then
    lists the directory again from a user namespace of its own (where it would hold
    CAP_DAC_READ_SEARCH over its uid's files)."""
    return textwrap.dedent(
        f"""
        import os
        root = {str(_forms())!r}

        def listing():
            try:
                return str(len(os.listdir(root)))
            except PermissionError:
                return "denied"

        print(listing())
        with open(os.path.join(root, {key!r}, "source.c"), "rb") as f:
            print(len(f.read()) > 0)
        try:
            uid, gid = os.getuid(), os.getgid()
            os.unshare(os.CLONE_NEWUSER)
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {{uid}} 1"),
                               ("gid_map", f"0 {{gid}} 1")):
                with open("/proc/self/" + name, "w") as f:
                    f.write(text)
        except OSError as exc:
            print("no user namespace", exc.errno)
        else:
            print(listing())
        """
    )


def _known_key() -> str:
    if not _entries():
        assert _run(VICTIM, PRELOAD)[0] == "9.000000"
    return next(iter(_entries()))


@MODES
def test_a_run_cannot_list_other_candidates_forms(preload) -> None:
    """Runs share the forms directory read-only, but may not list it: the keys there
    would lead a candidate to other candidates' C text. A run reaches an entry only by
    a key it computed from C text it generated; its own user namespace (which would give
    it CAP_DAC_READ_SEARCH over the files of its uid) cannot be made."""
    key = _known_key()
    out = _run(_snoop(key), preload)
    assert out[0] == "denied" and out[1] == "True"
    if _isolation.nested_userns_disabled():  # else forms are not shared here at all
        assert out[2].startswith("no user namespace")


@pytest.mark.parametrize("removed", ["seal", "userns"])
def test_the_forms_directory_is_listed_without_either_defence(removed, monkeypatch) -> None:
    """The controls, with cold runs: the forms directory kept readable (the mode it had
    before it was sealed) is listed; with nested user namespaces allowed, a run makes one and lists
    the sealed directory from there."""
    key = _known_key()
    cache = _formcache.FormCache(_forms())
    if not _isolation.nested_userns_disabled():
        pytest.skip("this bwrap cannot disable nested user namespaces")
    try:
        if removed == "seal":
            monkeypatch.setattr(_formcache, "ROOT_MODE", 0o755)
        else:
            monkeypatch.setattr(_isolation, "_userns_flags", lambda: [])
        out = _run(_snoop(key), ())
    finally:
        monkeypatch.undo()
        cache.ensure()
    if removed == "seal":
        assert out[0].isdigit() and int(out[0]) >= 1
    else:
        if out[2].startswith("no user namespace"):  # e.g. AppArmor's userns restriction
            pytest.skip("runs cannot make user namespaces here even without the flag")
        assert out[0] == "denied" and out[2].isdigit() and int(out[2]) >= 1


def _locker() -> str:
    """A run that tries to hold the cache's store lock (which would stall every other
    run's trusted compiles until they time out)."""
    return textwrap.dedent(
        f"""
        import fcntl, os
        path = os.path.join({str(_forms())!r}, {_formcache.LOCK_NAME!r})
        held = []
        for flags in (os.O_RDONLY, os.O_WRONLY, os.O_RDWR):
            try:
                fd = os.open(path, flags)
            except OSError as exc:
                held.append(exc.errno)
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append("held")
        print(held)
        """
    )


@pytest.mark.parametrize("mode", ["sealed", "control"])
def test_a_run_cannot_hold_the_stores_lock(mode, monkeypatch) -> None:
    """The lock file is write-only for its owner: a run can neither read it (no
    permission) nor write it (read-only mount), so it cannot flock it. The control, the
    lock file readable as before, is locked by the run."""
    _known_key()  # the cache and its lock file exist
    if mode == "control":
        monkeypatch.setattr(_formcache, "LOCK_MODE", 0o644)
    try:
        _formcache.FormCache(_forms()).ensure()
        out = _run(_locker(), ())
    finally:
        monkeypatch.undo()
        _formcache.FormCache(_forms()).ensure()
    assert (_forms() / _formcache.LOCK_NAME).stat().st_mode & 0o7777 == 0o200
    if mode == "sealed":
        assert "held" not in out[0]
    else:
        assert "held" in out[0]


@pytest.mark.parametrize("disabled", [True, False], ids=["userns-disabled", "userns-allowed"])
def test_forms_are_shared_only_where_runs_cannot_make_user_namespaces(
    disabled, monkeypatch
) -> None:
    """Where this bwrap cannot keep a run from making a user namespace of its own (bwrap
    before 0.8.0), a run could list the sealed forms directory from there: its runs then
    get no spool (they compile privately) instead of the shared cache."""
    from scigate.sandbox import _runner

    if disabled and not _isolation.nested_userns_disabled():
        pytest.skip("this bwrap cannot disable nested user namespaces")
    monkeypatch.setattr(_runner, "nested_userns_disabled", lambda: disabled)
    code = f"import os; print(os.environ.get({_formcache.SPOOL_ENV!r}) is not None)"
    assert _run(code, ()) == [str(disabled)]


PROBER = f"python/{Path(__file__).parent / 'models' / 'form_probe.py'}:probes_forms"
# a candidate whose solution leaves one bit (which of two forms it compiled) for a
# solver written to probe for it (`models/form_probe.py`)
LEAVER = textwrap.dedent(
    """
    import dolfinx_solver  # noqa: F401
    import ufl
    from dolfinx import fem, mesh
    from mpi4py import MPI

    msh = mesh.create_unit_square(MPI.COMM_WORLD, 2, 2)
    x = ufl.SpatialCoordinate(msh)
    print(f"{fem.assemble_scalar(fem.form(LITERAL * x[0] * ufl.dx(domain=msh))):.4f}")
    """
)


def _leaving_candidate(tmp_path: Path, literal: float, name: str = "cand"):
    from scigate.gate import load_candidate

    item = tmp_path / name
    item.mkdir()
    (item / "question.md").write_text(f"Integrate the field over the unit square ({name}).\n")
    options = {"A": "1.6250", "B": "2.3750", "C": "1.0000", "D": "0.5000"}
    (item / "options.json").write_text(json.dumps(options))
    (item / "answer.txt").write_text("A\n" if literal == 3.25 else "B\n")
    (item / "solution.py").write_text(LEAVER.replace("LITERAL", repr(literal)))
    return load_candidate(item)


@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "control"])
@pytest.mark.parametrize("literal", [3.25, 4.75])
def test_a_solver_cannot_tell_which_forms_the_candidate_compiled(
    scoped, literal, tmp_path, monkeypatch
) -> None:
    """Gate 1 runs the candidate's solution, which has one of two forms compiled; gate
    3's solver then builds both and counts the compiled modules it finds already there:
    a channel from the candidate to the solver (a bit per form, answers included). Each
    run has a scope of its own unless its caller shares one (the solver's episode has
    one), so the solver finds neither. The control, every run in one scope as before
    scopes existed, finds exactly the form the candidate compiled."""
    import asyncio

    from scigate import sandbox
    from scigate.gate import solve_with_model, verify

    cand = _leaving_candidate(tmp_path, literal)
    if not scoped:
        one = new_forms_scope()
        monkeypatch.setattr(_formcache, "new_scope", lambda: one)
        monkeypatch.setattr(sandbox, "new_forms_scope", lambda: one)
        cand._forms_scope = one
    gate1 = verify(cand)
    assert gate1.passed, gate1.reason
    solved = asyncio.run(solve_with_model(cand, PROBER, time_limit=240))
    if scoped:
        assert solved.answer_raw == "probe:0,0", solved.reason
    else:
        assert solved.answer_raw == ("probe:1,0" if literal == 3.25 else "probe:0,1")


def test_an_agent_episodes_tool_calls_share_one_scope(tmp_path) -> None:
    """The coding agent gives its episode one scope: its second tool call loads the form
    its first had compiled (and the defence above costs an agent nothing between its
    own calls)."""
    import asyncio

    from scigate.gate import solve_with_model

    twice = f"python/{Path(__file__).parent / 'models' / 'form_probe.py'}:builds_twice"
    solved = asyncio.run(solve_with_model(_leaving_candidate(tmp_path, 3.25), twice))
    assert solved.answer_raw == "stats:1,0,0", solved.reason


@pytest.mark.parametrize("shared", [True, False], ids=["episode-scope", "control"])
def test_gate_1_loads_what_its_generator_episode_compiled(shared, monkeypatch) -> None:
    """The LLM generator's episode and its candidate's gate 1 are one author's runs and
    share a scope: gate 1 compiles nothing the episode's own run of solution.py had
    compiled. The control, gate 1 in a scope of its own, compiles it again."""
    import asyncio

    from scigate.domains import get_domain
    from scigate.gate import verify
    from scigate.gate._coding_agent import AgentLimits
    from scigate.gate._generator import Feedback, LLMGenerator

    compiles = _count_compiles(monkeypatch)
    author = f"python/{Path(__file__).parent / 'models' / 'form_probe.py'}:writes_and_runs"
    gen = LLMGenerator(
        author,
        domain=get_domain("fenicsx"),
        limits=AgentLimits(wall_seconds=240, preload=PRELOAD),
        seeds_in_prompt=0,
    )
    generated = asyncio.run(gen.generate(0, Feedback()))
    cand = generated.candidate
    assert cand is not None, generated.reason
    in_episode = len(compiles)
    assert in_episode >= 1
    if not shared:
        cand._forms_scope = None
    gate1 = verify(cand)
    assert gate1.passed, gate1.reason
    assert len(compiles) == (in_episode if shared else 2 * in_episode)
    assert "_forms_scope" not in cand.model_dump_json()  # never stored or exported


def test_a_candidates_runs_share_its_forms_and_no_other_candidate_does(
    tmp_path, monkeypatch
) -> None:
    """Gate 1 again on the same candidate (a re-run in the same process, as the
    benchmarks and a resumed stage do) compiles nothing; another candidate with the
    very same form has a scope of its own and compiles it for itself."""
    from scigate.gate import verify

    compiles = _count_compiles(monkeypatch)
    literal = 3.25  # candidates' scopes come from this process's secret: fresh here
    first = _leaving_candidate(tmp_path, literal, "first")
    assert verify(first).passed
    compiled = len(compiles)
    assert compiled >= 1
    assert verify(first).passed
    assert len(compiles) == compiled  # the same candidate: loaded
    other = _leaving_candidate(tmp_path, literal, "other")
    assert other.id != first.id and other.solution == first.solution
    assert verify(other).passed
    assert len(compiles) == 2 * compiled  # another candidate: compiled for itself
    assert first.forms_scope != other.forms_scope


def _count_compiles(monkeypatch) -> list[bytes]:
    """The C texts of the trusted compiles from now on (each still compiled)."""
    compiles: list[bytes] = []
    real = _formcache.compile_trusted

    def counted(c_text, flags, cancel=None):
        compiles.append(c_text)
        return real(c_text, flags, cancel)

    monkeypatch.setattr(_formcache, "compile_trusted", counted)
    return compiles
