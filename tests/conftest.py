"""Fixtures for every test folder.

The openai and anthropic SDKs send through httpx2/httpcore2, which respx does not patch
out of the box; `HTTPCore2Mocker` teaches respx to intercept httpcore2 connection pools
the way it intercepts httpcore, so routes replay real wire formats to the real SDKs.
"""

from __future__ import annotations

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group tests for `--dist loadgroup`: each file is one group (its module fixtures and
    warm servers are set up once), each Ray folder one group."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        path = item.path.as_posix()
        folder = next((f for f in _RAY_FOLDERS if f in path), None)
        item.add_marker(pytest.mark.xdist_group(folder or path))
