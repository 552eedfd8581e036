"""Fixtures for every test folder.

The openai and anthropic SDKs send through httpx2/httpcore2, which respx does not patch
out of the box; `HTTPCore2Mocker` teaches respx to intercept httpcore2 connection pools
the way it intercepts httpcore, so routes replay real wire formats to the real SDKs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile

import httpcore2
import pytest
import respx
from respx.mocks import HTTPCoreMocker, Mocker

if "httpcore2" not in Mocker.registry:

    class HTTPCore2Mocker(HTTPCoreMocker):
        name = "httpcore2"
        targets = [  # noqa: RUF012 - respx's class attribute
            "httpcore2._async.connection.AsyncHTTPConnection",
            "httpcore2._async.connection_pool.AsyncConnectionPool",
            "httpcore2._async.http_proxy.AsyncHTTPProxy",
        ]

        @classmethod
        def from_sync_httpx_response(cls, httpx_response, target, **kwargs):
            return httpcore2.Response(
                status=httpx_response.status_code,
                headers=httpx_response.headers.raw,
                content=httpx_response.stream,
                extensions=httpx_response.extensions,
            )


@pytest.fixture
def api():
    """A respx router that intercepts the SDKs' requests; anything unrouted fails."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


# Folders whose tests start Ray: under pytest-xdist each folder runs on one worker, file after
# file, so tests/executor's package-scoped Ray starts once and at most two Ray clusters start
# at the same time (four at once on two cores time out in raylet start-up).
_RAY_FOLDERS = ("tests/executor/", "tests/executor_faults/")
#: a group name ends with its weight: "<group>~w<weight>" (a Ray folder, else its slow tests)
_WEIGHT = re.compile(r"~w(\d+)$")
#: where the workers write each test's group for the controller's scheduler (`HeavyFirst`)
_GROUPS_DIR = "SCIGATE_XDIST_GROUPS"


def pytest_configure(config: pytest.Config) -> None:
    """On the xdist controller of a `--dist loadgroup` run: a directory for the workers'
    test -> group maps (the workers inherit the variable)."""
    if hasattr(config, "workerinput") or _GROUPS_DIR in os.environ:
        return
    if config.getoption("dist", None) == "loadgroup":  # None: xdist not loaded
        directory = tempfile.mkdtemp(prefix="scigate-xdist-groups-")
        os.environ[_GROUPS_DIR] = directory
        config.add_cleanup(lambda: shutil.rmtree(directory, ignore_errors=True))
        config.add_cleanup(lambda: os.environ.pop(_GROUPS_DIR, None))


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture of the test tree shared beyond one test (module,
    package or session scope; a plugin's, such as tmp_path's tmp_path_factory, aside)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope != "function" and d.baseid for fixturedefs in defs for d in fixturedefs)


# xdist 3.8 puts the group into the test id (`item._nodeid`), which pytest 9 no longer reads
# (`Node.nodeid` is `str(item._id)`): the xdist_group markers were silently ignored and every
# test was scheduled alone (a module fixture built on each worker, Ray clusters starting on
# several). So each worker also writes its test -> group map for `HeavyFirst`, which groups
# by it. tryfirst: the markers are in place before xdist's own hook reads them.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group tests for `--dist loadgroup`: each Ray folder is one group; in other files
    the tests that share a module, package or session fixture of the test tree, or are
    marked `same_worker`, are one group per file (the fixture is built once, the heavy
    SDK they import is loaded by one worker), and every other test is a group of its
    own, so long independent tests spread over the workers. The group name carries its
    weight for `HeavyFirst`."""
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        path = item.path.as_posix()
        folder = next((f for f in _RAY_FOLDERS if f in path), None)
        if folder:
            group = folder
        elif _shares_a_fixture(item) or item.get_closest_marker("same_worker"):
            group = path
        else:  # xdist reads the group after the last "@", and only if no "]" follows it
            group = item.nodeid.translate(str.maketrans("@[]", "_()"))
        groups.setdefault(group, []).append(item)
    named: dict[str, str] = {}
    for group, members in groups.items():
        weight = 1000 if group in _RAY_FOLDERS else 0
        weight += sum(1 for m in members if m.get_closest_marker("slow"))
        for member in members:
            member.add_marker(pytest.mark.xdist_group(f"{group}~w{weight}"))
            named[member.nodeid] = f"{group}~w{weight}"
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker and os.environ.get(_GROUPS_DIR):
        target = os.path.join(os.environ[_GROUPS_DIR], f"{worker}.json")
        with open(target + ".tmp", "w") as f:
            json.dump(named, f)
        os.replace(target + ".tmp", target)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup` with the heavy groups first (longest processing time first): xdist
    hands out groups by their number of tests, so a 2-test group that runs two minutes (the
    200-task build) started last and ran alone at the end. Ray folders first, then groups
    by their number of slow tests, then xdist's own order (most tests first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class HeavyFirst(LoadGroupScheduling):
        _ordered = False
        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:  # every worker has collected: read one worker's map
                directory = os.environ.get(_GROUPS_DIR, "")
                maps = sorted(os.listdir(directory)) if directory else []
                maps = [m for m in maps if m.endswith(".json")]
                with open(os.path.join(directory, maps[0])) if maps else open(os.devnull) as f:
                    self._groups = json.loads(f.read() or "{}")
            return self._groups.get(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                units = sorted(self.workqueue.items(), key=lambda unit: -_weight(unit[0]))
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return HeavyFirst(config, log)


def _weight(scope: str) -> int:
    found = _WEIGHT.search(scope)
    return int(found.group(1)) if found else 0
