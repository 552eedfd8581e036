"""The host's side of the shared compiled-form cache (`_formcache`) and the key and
entry checks the sandbox's hook makes (`_formhook`): what a spool request must be for
anything to be compiled and stored, what an entry must be for a run to load it, and the
size bound. The trusted compile is replaced by a recorder where only the decision is
under test; `test_attacks_formcache.py` runs the real thing end to end."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from _wait import wait_until
from scigate.errors import BadInput
from scigate.sandbox import _formcache, _formhook
from scigate.sandbox._formcache import FormCache, SpoolWatcher, handle_request, serve_spool
from scigate.sandbox._formhook import canonical_c, entry_module, flags_allowed, form_key

MODULE = "libffcx_forms_" + "ab" * 20
FLAGS = {"extra_compile_args": ["-O2", "-g0"], "libraries": ["m"], "debug": False}
SCOPE = "5c" * 16  # the runs' forms scope (`_formcache.new_scope` makes random ones)
C_TEXT = f"static const double w[2] = {{0.5, 0.5}};\nvoid *PyInit_{MODULE}(void) {{ return 0; }}\n"
SO = b"\x7fELF pretend module"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The C texts handed to the trusted compile (which returns `SO`)."""
    calls: list[bytes] = []

    def fake(c_text: bytes, flags: dict, cancel: object = None) -> bytes:
        calls.append(c_text)
        return SO

    monkeypatch.setattr(_formcache, "compile_trusted", fake)
    return calls


@pytest.fixture
def spool(tmp_path: Path) -> Iterator[int]:
    path = tmp_path / "spool"
    path.mkdir()
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def _request(c_text: str = C_TEXT, key: str | None = None, module: str = MODULE) -> bytes:
    real = form_key(c_text.encode(), module, FLAGS, SCOPE)
    body = {"key": key or real, "module_name": module, "flags": FLAGS, "c": c_text}
    return json.dumps(body).encode()


def _put(spool: int, name: str, data: bytes) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=spool)
    os.write(fd, data)
    os.close(fd)


def test_canonical_c_drops_comments_and_keeps_literals() -> None:
    text = b'int a; // x "y"\nchar *s = "a//b/*c*/"; /* two\nlines */ char c = \'"\';\n'
    assert canonical_c(text) == b'int a;  \nchar *s = "a//b/*c*/";   char c = \'"\';\n'
    # FFCx's comments change with the hash seed; the code, and so the key, does not
    assert canonical_c(b"x = 1; // in: a, b\n") == canonical_c(b"x = 1; // in: b, a\n")


def test_the_key_covers_text_module_flags_and_versions() -> None:
    c = C_TEXT.encode()
    base = form_key(c, MODULE, FLAGS, SCOPE)
    assert form_key(c + b" ", MODULE, FLAGS, SCOPE) != base
    assert form_key(c, MODULE.replace("ab", "cd", 1), FLAGS, SCOPE) != base
    assert form_key(c, MODULE, {**FLAGS, "extra_compile_args": ["-O3"]}, SCOPE) != base
    assert form_key(c, MODULE, FLAGS, SCOPE, tag=_formhook.versions_tag() + "x") != base
    assert form_key(c, MODULE, FLAGS, "6d" * 16) != base
    assert "fenics-ffcx=" in _formhook.versions_tag()


@pytest.mark.parametrize(
    "args",
    [["-include", "/etc/passwd"], ["-fplugin=/tmp/evil.so"], ["-B/tmp"], ["-specs=x"], ["-o", "x"]],
)
def test_only_allow_listed_flags_compile_trusted(args: list[str]) -> None:
    assert flags_allowed(FLAGS)
    assert not flags_allowed({**FLAGS, "extra_compile_args": args})
    assert not flags_allowed({**FLAGS, "libraries": ["evil"]})
    assert not flags_allowed({**FLAGS, "sources": ["/etc/passwd"]})


def test_a_request_is_compiled_stored_and_loadable(tmp_path: Path, spool: int, compiled) -> None:
    cache = FormCache(tmp_path / "forms")
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    _put(spool, f"{key}.req", _request())
    assert handle_request(cache, spool, f"{key}.req", SCOPE) == "ok"
    assert compiled == [C_TEXT.encode()]
    assert sorted(os.listdir(spool)) == [f"{key}.ok"]
    assert entry_module(str(cache.root / key), key, MODULE, C_TEXT.encode()) == SO
    # entries are read-only files; a second request for the same key compiles nothing
    assert not os.access(cache.root / key / "module.so", os.W_OK) or os.geteuid() == 0
    _put(spool, f"{key}.req", _request())
    assert handle_request(cache, spool, f"{key}.req", SCOPE) == "ok"
    assert len(compiled) == 1


def test_a_request_whose_key_is_not_its_hash_plants_nothing(
    tmp_path: Path, spool: int, compiled
) -> None:
    cache = FormCache(tmp_path / "forms")
    victim = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    poisoned = C_TEXT.replace("0.5, 0.5", "1.0, 1.0")
    # named and claimed as the victim's key, carrying other C text
    _put(spool, f"{victim}.req", _request(poisoned, key=victim))
    assert "not the hash" in handle_request(cache, spool, f"{victim}.req", SCOPE)
    # named as the victim's key, claiming its own (true) key
    _put(spool, f"{victim}.req", _request(poisoned))
    assert "not the hash" in handle_request(cache, spool, f"{victim}.req", SCOPE)
    assert compiled == []
    assert not (cache.root / victim).exists()
    assert sorted(os.listdir(spool)) == [f"{victim}.refused"]
    # under its own hash it is compiled, and the victim's key still finds nothing
    own = form_key(poisoned.encode(), MODULE, FLAGS, SCOPE)
    _put(spool, f"{own}.req", _request(poisoned))
    assert handle_request(cache, spool, f"{own}.req", SCOPE) == "ok"
    assert entry_module(str(cache.root / victim), victim, MODULE, C_TEXT.encode()) is None


def test_requests_for_other_modules_or_flags_are_refused(
    tmp_path: Path, spool: int, compiled
) -> None:
    cache = FormCache(tmp_path / "forms")
    cases = {
        "not an FFCx module": _request(module="os"),
        "not that module": _request(C_TEXT.replace("PyInit_", "Init_")),
        "allow-list": json.dumps(
            {
                "key": "0" * 64,
                "module_name": MODULE,
                "flags": {**FLAGS, "extra_compile_args": ["-fplugin=x"]},
                "c": C_TEXT,
            }
        ).encode(),
        "not a form request": b"\xff not json",
    }
    for why, body in cases.items():
        key = json.loads(body)["key"] if body.startswith(b"{") else "1" * 64
        _put(spool, f"{key}.req", body)
        assert why in handle_request(cache, spool, f"{key}.req", SCOPE)
    assert compiled == []


def test_links_fifos_and_oversized_requests_are_refused(
    tmp_path: Path, spool: int, compiled
) -> None:
    cache = FormCache(tmp_path / "forms")
    target = tmp_path / "host-secret"
    target.write_bytes(_request())
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    os.symlink(target, f"{key}.req", dir_fd=spool)
    assert "symlink" in handle_request(cache, spool, f"{key}.req", SCOPE)
    os.mkfifo(f"{key}.req", dir_fd=spool)
    done = threading.Event()
    threading.Thread(
        target=lambda: (handle_request(cache, spool, f"{key}.req", SCOPE), done.set())
    ).start()
    assert done.wait(10), "a FIFO in the spool blocked the host"
    fd = os.open(f"{key}.req", os.O_WRONLY | os.O_CREAT, dir_fd=spool)
    os.ftruncate(fd, _formcache.MAX_REQUEST + 1)
    os.close(fd)
    assert "limit" in handle_request(cache, spool, f"{key}.req", SCOPE)
    assert compiled == []
    assert target.read_bytes() == _request()  # never written through
    assert not (cache.root / key).exists()


def test_poisoned_entries_are_never_loaded(tmp_path: Path, spool: int, compiled) -> None:
    cache = FormCache(tmp_path / "forms")
    c = C_TEXT.encode()
    key = form_key(c, MODULE, FLAGS, SCOPE)
    cache.store(key, MODULE, FLAGS, c, SO)
    entry = cache.root / key
    assert entry_module(str(entry), key, MODULE, c) == SO
    so = entry / "module.so"
    so.chmod(0o644)
    so.write_bytes(b"\x7fELF poisoned")  # the module swapped behind its record
    assert entry_module(str(entry), key, MODULE, c) is None
    # the whole entry rewritten consistently, but from other C text
    source = entry / "source.c"
    source.chmod(0o644)
    source.write_bytes(c.replace(b"0.5, 0.5", b"1.0, 1.0"))
    meta = json.loads((entry / "meta.json").read_text())
    import hashlib

    meta["so_sha256"] = hashlib.sha256(so.read_bytes()).hexdigest()
    (entry / "meta.json").chmod(0o644)
    (entry / "meta.json").write_text(json.dumps(meta))
    assert entry_module(str(entry), key, MODULE, c) is None
    assert entry_module(str(entry), "f" * 64, MODULE, source.read_bytes()) is None
    # the host replaces a broken entry when the form is requested again
    _put(spool, f"{key}.req", _request())
    assert handle_request(cache, spool, f"{key}.req", SCOPE) == "ok"
    assert entry_module(str(entry), key, MODULE, c) == SO


def test_the_cache_is_bounded_least_recently_used_first(tmp_path: Path) -> None:
    entries = []
    for i in range(3):
        c = C_TEXT.replace("0.5, 0.5", f"{i}.0, 0.5").encode()
        entries.append((form_key(c, MODULE, FLAGS, SCOPE), c))
    cache = FormCache(tmp_path / "forms")
    cache.store(entries[0][0], MODULE, FLAGS, entries[0][1], SO)
    cache.max_bytes = 2 * cache.entries()[0][1] + 100  # room for two entries
    os.utime(cache.root / entries[0][0], (1, 1))
    cache.store(entries[1][0], MODULE, FLAGS, entries[1][1], SO)
    os.utime(cache.root / entries[1][0], (2, 2))
    cache.touch(entries[0][0])  # used again: now the most recent
    cache.store(entries[2][0], MODULE, FLAGS, entries[2][1], SO)
    left = {p.name for _, _, p in cache.entries()}
    assert left == {entries[0][0], entries[2][0]}
    assert sum(size for _, size, _ in cache.entries()) <= cache.max_bytes


def test_the_watcher_serves_a_run_and_never_follows_a_planted_spool(
    tmp_path: Path, compiled, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_formcache, "POLL_SECONDS", 0.005)
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / ".home").mkdir(parents=True)
    outside.mkdir()
    (ws / ".home" / ".formspool").symlink_to(outside)  # left by an earlier run
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    with SpoolWatcher(ws, tmp_path / "cache", SCOPE) as watcher:
        spool = ws / ".home" / ".formspool"
        assert spool.is_dir() and not spool.is_symlink()
        (spool / f"{key}.req.tmp").write_bytes(_request())
        os.replace(spool / f"{key}.req.tmp", spool / f"{key}.req")
        for _ in range(1000):
            if (spool / f"{key}.ok").exists():
                break
            threading.Event().wait(0.01)
    assert (spool / f"{key}.ok").exists()
    assert watcher.log == [(f"{key}.req", "ok")]
    assert os.listdir(outside) == []
    assert (tmp_path / "cache" / "forms" / key / "module.so").read_bytes() == SO


def test_serve_spool_touches_entries_a_run_used(tmp_path: Path, spool: int) -> None:
    cache = FormCache(tmp_path / "forms")
    c = C_TEXT.encode()
    key = form_key(c, MODULE, FLAGS, SCOPE)
    cache.store(key, MODULE, FLAGS, c, SO)
    os.utime(cache.root / key, (1, 1))
    _put(spool, f"{key}.hit", b"")
    assert serve_spool(cache, spool, SCOPE) == []
    assert (cache.root / key).stat().st_mtime > 1
    assert os.listdir(spool) == []


def test_a_run_gets_a_bounded_number_of_compiles(tmp_path: Path, spool: int, compiled) -> None:
    cache = FormCache(tmp_path / "forms")
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    _put(spool, f"{key}.req", _request())
    assert serve_spool(cache, spool, SCOPE, compiles_left=0) == [
        (f"{key}.req", f"refused: more than {_formcache.MAX_COMPILES} compiles in one run")
    ]
    assert compiled == []
    _put(spool, f"{key}.req", _request())
    assert serve_spool(cache, spool, SCOPE, compiles_left=1) == [(f"{key}.req", "ok")]


def test_the_site_hook_loads_only_with_ffcx_and_patches_its_jit(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; print('_scigate_formhook' in sys.modules, 'importlib.abc' in sys.modules)\n"
        "import ffcx.codegeneration.jit as jit\n"
        "print('_scigate_formhook' in sys.modules, getattr(jit, '_scigate_formhook', False))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(_formcache.SITE_DIR)}
    env["SCIGATE_FORMCACHE"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False", "True", "True"], out.stderr[-1000:]
    env.pop("SCIGATE_FORMCACHE")  # no shared cache: FFCx is left alone
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False", "False", "False"], out.stderr[-1000:]


def test_a_trusted_compile_workspace_holds_only_its_c_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trusted compile runs in a real sandbox whose workspace has the C text and no
    links to the trusted JIT cache (hundreds of them in a used cache: 0.4 s to link and
    1.1 s to remove per form); a run that does use FFCx gets them (the control)."""
    from scigate.sandbox import _runner
    from scigate.sandbox._jitcache import JIT_SUBDIR, trusted_dir
    from scigate.sandbox._models import Limits

    cache = tmp_path / "cache"
    shared = trusted_dir(cache) / JIT_SUBDIR
    shared.mkdir(parents=True)
    for name in ("libffcx_forms_aa.c", "libffcx_forms_aa.c.cached", "libffcx_forms_aa.so"):
        (shared / name).write_text("compiled by a trusted process")
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(cache))
    listing = ["/bin/sh", "-c", f"find . -mindepth 1 | sort > {_formhook.SO_NAME}"]
    monkeypatch.setattr(_formcache, "compile_command", lambda flags, pch=None, base=None: listing)
    seen = _formcache.compile_trusted(C_TEXT.encode(), FLAGS).decode().split()
    assert "./source.c" in seen
    assert not [p for p in seen if JIT_SUBDIR in p or "libffcx" in p], seen

    control = tmp_path / "control"
    control.mkdir()
    limits = Limits(wall_seconds=60)
    result = _runner.execute(listing, workspace=control, limits=limits, cache_dir=cache)
    assert result.ok, result.reason
    assert f"./.home/.cache/{JIT_SUBDIR}/libffcx_forms_aa.so" in (
        (control / _formhook.SO_NAME).read_text().split()
    )


def test_a_store_lists_the_cache_only_past_the_bound_or_every_few_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing a full cache (5,000 entries) takes 0.3 s: a store lists it only when the
    running estimate passes the bound or every RESCAN_STORES stores, and still keeps the
    bound, including for entries another process stored meanwhile."""
    monkeypatch.setattr(_formcache, "RESCAN_STORES", 4)
    listings = []
    real_entries = FormCache.entries

    def counted(self: FormCache) -> list:
        listings.append(1)
        return real_entries(self)

    monkeypatch.setattr(FormCache, "entries", counted)
    texts = [C_TEXT.replace("0.5, 0.5", f"{i}.0, 0.5").encode() for i in range(12)]
    keys = [form_key(c, MODULE, FLAGS, SCOPE) for c in texts]
    cache = FormCache(tmp_path / "forms", max_bytes=1 << 30)
    for key, c in zip(keys[:5], texts[:5], strict=True):
        cache.store(key, MODULE, FLAGS, c, SO)
    assert len(listings) == 2  # the first store, then the fourth after it
    size = real_entries(cache)[0][1]

    other = FormCache(tmp_path / "forms", max_bytes=1 << 30)  # stands for another process
    monkeypatch.setattr(_formcache, "_estimate", {})
    other.store(keys[5], MODULE, FLAGS, texts[5], SO)
    monkeypatch.setattr(_formcache, "_estimate", {str(cache.root): (5 * size, 3)})
    cache.max_bytes = 6 * size + 10  # six entries fit; the estimate knows of five
    cache.store(keys[6], MODULE, FLAGS, texts[6], SO)  # the fourth store: lists all
    assert sum(s for _, s, _ in real_entries(cache)) <= cache.max_bytes
    for key, c in zip(keys[7:], texts[7:], strict=True):  # past the bound by estimate
        cache.store(key, MODULE, FLAGS, c, SO)
        assert sum(s for _, s, _ in real_entries(cache)) <= cache.max_bytes


def _stored(cache: FormCache, module: str = MODULE, c_text: str = C_TEXT) -> str:
    c = c_text.encode()
    key = form_key(c, module, FLAGS, SCOPE)
    cache.store(key, module, FLAGS, c, SO)
    return key


OTHER = "libffcx_forms_" + "cd" * 20


def test_hit_notes_give_the_runs_form_map_only_as_the_entries_record_it(
    tmp_path: Path, spool: int
) -> None:
    """A run's form map (module name -> key) holds an entry only when the note's module
    name is the one the entry was compiled for; a note naming another module, a link,
    a FIFO or an oversized note adds nothing (and still never blocks the host)."""
    cache = FormCache(tmp_path / "forms")
    key = _stored(cache)
    other = _stored(cache, OTHER, C_TEXT.replace(MODULE, OTHER))
    _put(spool, f"{key}.hit", MODULE.encode())
    _put(spool, f"{other}.hit", MODULE.encode())  # a lie: that entry is OTHER's
    used: dict[str, str] = {}
    serve_spool(cache, spool, SCOPE, used=used)
    assert used == {MODULE: key}
    assert os.listdir(spool) == []
    target = tmp_path / "note"
    target.write_text(OTHER)
    os.symlink(target, f"{other}.hit", dir_fd=spool)
    os.mkfifo(f"{'e' * 64}.hit", dir_fd=spool)
    _put(spool, f"{other}x.hit", OTHER.encode())  # not a key
    used2: dict[str, str] = {}
    serve_spool(cache, spool, SCOPE, used=used2)
    assert used2 == {}
    _put(spool, f"{other}.hit", OTHER.encode() + b" " * _formcache.MAX_HIT_NOTE)
    serve_spool(cache, spool, SCOPE, used=used2)
    assert used2 == {}
    _put(spool, f"{other}.hit", OTHER.encode())  # the control: the same note, honest
    serve_spool(cache, spool, SCOPE, used=used2)
    assert used2 == {OTHER: other}


def test_the_watcher_returns_the_form_map_of_its_run(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".home").mkdir(parents=True)
    cache = FormCache(_formcache.forms_dir(tmp_path / "cache"))
    key = _stored(cache)
    with SpoolWatcher(ws, tmp_path / "cache", SCOPE) as watcher:
        spool = ws / ".home" / ".formspool"
        # written as the hook writes it (a temporary name, then a rename): a note created
        # empty and filled after is taken by the watcher, woken by inotify, while empty
        (spool / ".note.tmp").write_text(MODULE)
        os.replace(spool / ".note.tmp", spool / f"{key}.hit")
    assert _formcache.forms_used(watcher) == {MODULE: key}
    assert _formcache.forms_used(None) == {}


def test_a_form_map_keeps_only_well_formed_entries() -> None:
    good = {MODULE: "a" * 64}
    text = json.dumps({**good, "x; rm -rf /": "a" * 64, OTHER: "../" + "a" * 61, MODULE + "1": 3})
    assert _formhook.read_form_map(text) == good
    assert _formhook.read_form_map("[1, 2]") == {}
    assert _formhook.read_form_map("{not json") == {}
    many = {f"libffcx_forms_{i:040x}": "b" * 64 for i in range(_formhook.MAX_MAP + 5)}
    assert len(_formhook.read_form_map(json.dumps(many))) == _formhook.MAX_MAP
    env = _formcache.form_map_env({**good, "bad": "key"})
    assert json.loads(env[_formhook.MAP_ENV]) == good
    assert _formcache.form_map_env({}) == {} and _formcache.form_map_env(None) == {}


@pytest.fixture
def mapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[FormCache, str]:
    """A forms cache with one entry, and a run whose form map names it."""
    cache = FormCache(tmp_path / "forms")
    key = _stored(cache)
    monkeypatch.setenv(_formhook.CACHE_ENV, str(cache.root))
    monkeypatch.delenv(_formhook.SPOOL_ENV, raising=False)
    monkeypatch.setattr(_formhook, "_FORM_MAP", {MODULE: key})
    return cache, key


def test_a_mapped_module_is_staged_as_a_finished_ffcx_compile(tmp_path: Path, mapped) -> None:
    jit = tmp_path / "jit"
    assert _formhook.stage_mapped(MODULE, str(jit))
    suffix = __import__("sysconfig").get_config_var("EXT_SUFFIX")
    assert (jit / (MODULE + suffix)).read_bytes() == SO
    assert (jit / f"{MODULE}.c").exists() and (jit / f"{MODULE}.c.cached").exists()
    # a name FFCx already claimed in this run is left to FFCx
    assert not _formhook.stage_mapped(MODULE, str(jit))
    # a name the map does not hold is never staged
    assert not _formhook.stage_mapped(OTHER, str(tmp_path / "jit2"))
    assert not (tmp_path / "jit2").exists()


@pytest.mark.parametrize("damage", ["module", "name", "control"])
def test_a_map_never_stages_a_damaged_or_foreign_entry(tmp_path: Path, mapped, damage) -> None:
    """The map's key must lead to an intact entry compiled for that very module name:
    a swapped module or an entry made for another module is not loaded."""
    cache, key = mapped
    entry = cache.root / key
    if damage == "module":
        (entry / "module.so").chmod(0o644)
        (entry / "module.so").write_bytes(b"\x7fELF planted")
    elif damage == "name":  # the key of OTHER's entry under MODULE's name
        other = _stored(cache, OTHER, C_TEXT.replace(MODULE, OTHER))
        _formhook._FORM_MAP[MODULE] = other
    jit = tmp_path / "jit"
    staged = _formhook.stage_mapped(MODULE, str(jit))
    assert staged is (damage == "control")
    assert (jit / f"{MODULE}.c").exists() is staged


def test_the_forms_directory_is_sealed_and_still_evicted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forms directory is searchable but not readable (a run may not list other
    candidates' keys), also when an earlier version left it readable; a host that may not
    read it either (not root) lists it for eviction through `_list_sealed`, so the bound
    still holds."""
    import shutil

    root = tmp_path / "forms"
    root.mkdir(mode=0o755)
    cache = FormCache(root)
    entries = []
    for i in range(3):
        c = C_TEXT.replace("0.5, 0.5", f"{i}.0, 0.5").encode()
        entries.append((form_key(c, MODULE, FLAGS, SCOPE), c))
    cache.store(entries[0][0], MODULE, FLAGS, entries[0][1], SO)
    assert root.stat().st_mode & 0o7777 == _formcache.ROOT_MODE == 0o311
    if shutil.which("bwrap") is None:
        pytest.skip("the sealed listing runs under bwrap")
    assert entries[0][0] in _formcache._list_sealed(root)
    real_listdir = os.listdir

    def as_owner(path: object = ".") -> list[str]:  # an owner without the capability
        if os.fspath(path) == os.fspath(root):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fspath(root))  # type: ignore[arg-type]
        return real_listdir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(_formcache.os, "listdir", as_owner)
    cache.max_bytes = 2 * cache.entries()[0][1] + 100  # room for two entries
    os.utime(root / entries[0][0], (1, 1))
    for key, c in entries[1:]:
        cache.store(key, MODULE, FLAGS, c, SO)
    assert {p.name for _, _, p in cache.entries()} == {entries[1][0], entries[2][0]}


def test_a_forms_directory_that_cannot_be_sealed_stops_the_run_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user's readable forms directory cannot be sealed: the run stops with a
    line saying what to do, instead of sharing a directory runs could list."""
    from scigate.errors import BadInput
    from scigate.sandbox._runner import forms_watcher

    (tmp_path / "forms").mkdir(mode=0o755)

    def not_owner(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(_formcache.os, "chmod", not_owner)
    ws = tmp_path / "ws"
    ws.mkdir()
    with pytest.raises(BadInput, match=r"cannot seal .*forms.*SCIGATE_FORMCACHE_BYTES=0"):
        forms_watcher(ws, tmp_path, {_formcache.SPOOL_ENV: "x"})


def test_a_run_that_does_not_share_forms_still_finds_the_directory_sealed(
    tmp_path: Path,
) -> None:
    """With sharing off (or for a trusted compile) the run still sees the cache
    directory: a forms directory left readable by an earlier version is sealed too."""
    from scigate.sandbox._runner import forms_watcher

    (tmp_path / "forms").mkdir(mode=0o755)
    ws = tmp_path / "ws"
    ws.mkdir()
    with forms_watcher(ws, tmp_path, {}):
        pass
    assert (tmp_path / "forms").stat().st_mode & 0o7777 == _formcache.ROOT_MODE


def test_a_request_is_served_only_under_its_own_runs_scope(
    tmp_path: Path, spool: int, compiled
) -> None:
    """A run of one scope asking for the key another scope's runs use (it cannot know
    it, but suppose it did) is refused: the host computes every key with the asking
    run's scope, so nothing tells a run whether another scope's entry exists."""
    cache = FormCache(tmp_path / "forms")
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    _put(spool, f"{key}.req", _request())
    assert handle_request(cache, spool, f"{key}.req", SCOPE) == "ok"  # stored for SCOPE
    _put(spool, f"{key}.req", _request())
    assert "not the hash" in handle_request(cache, spool, f"{key}.req", "6d" * 16)
    _put(spool, f"{key}.req", _request())
    assert "no forms scope" in handle_request(cache, spool, f"{key}.req", "")
    assert len(compiled) == 1


@pytest.mark.parametrize("scope", ["", "ab" * 8, "AB" * 16, "../" * 12, "zz" * 16])
def test_a_run_gets_no_weak_or_malformed_scope(scope: str) -> None:
    with pytest.raises(BadInput, match="forms scope"):
        _formcache.run_env(Path("/c"), "/w", scope)
    fresh = _formcache.new_scope()
    assert _formhook.SCOPE.fullmatch(fresh) and fresh != _formcache.new_scope()


def test_the_watcher_answers_at_once_and_ends_without_waiting(
    tmp_path: Path, compiled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the watcher's listings an hour apart, only its wake-up on a new spool entry
    (`_dirwatch`) can answer within the test's deadline, and only the wake-up on exit
    can end it: the order of events, not a duration."""
    import threading

    monkeypatch.setattr(_formcache, "POLL_SECONDS", 3600.0)
    monkeypatch.setattr(_formcache, "IDLE_SECONDS", 3600.0)
    key = form_key(C_TEXT.encode(), MODULE, FLAGS, SCOPE)
    ws = tmp_path / "ws"
    ws.mkdir()
    watcher = SpoolWatcher(ws, tmp_path / "cache", SCOPE)
    waiting = threading.Event()
    real_wait = watcher.waiter.wait

    def wait(timeout: float) -> None:  # the first listing is done: it waits now
        waiting.set()
        real_wait(timeout)

    monkeypatch.setattr(watcher.waiter, "wait", wait)
    # the exit, in a thread so that a lost wake-up fails the test, not hangs it
    ended = threading.Thread(target=lambda: watcher.__exit__(None, None, None), daemon=True)
    watcher.__enter__()
    try:
        spool = ws / ".home" / ".formspool"
        assert waiting.wait(60)
        (spool / f"{key}.req.tmp").write_bytes(_request())
        os.replace(spool / f"{key}.req.tmp", spool / f"{key}.req")
        wait_until(lambda: (spool / f"{key}.ok").exists(), message="never answered")
    finally:
        ended.start()
    wait_until(lambda: not ended.is_alive(), message="the exit waited for the listing")
    assert compiled == [C_TEXT.encode()]
