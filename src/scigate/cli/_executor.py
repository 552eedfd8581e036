"""The `--executor` / `--ray-address` options shared by the verbs that can scale out."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from scigate.cli._validate import library_option

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where tasks run: local (this process, the default) or ray (Ray workers; "
        "the driver still writes every record). Needs the ray extra.",
    ),
]
RayAddressOption = Annotated[
    str | None,
    library_option(
        "--ray-address",
        field="address",  # `make_executor`'s parameter
        help="Ray cluster to join (e.g. 10.0.0.1:6379 or auto); without it --executor ray "
        "starts a local Ray.",
    ),
]


def check_executor(name: str, address: str | None) -> None:
    """The library's check (`scigate.executor.check_executor`), imported only when a verb
    runs: an unknown executor, --ray-address without ray, or Ray missing."""
    from scigate.executor import check_executor as check

    check(name, address)


def open_executor(name: str, address: str | None) -> Any:
    """None for `local` (the in-process path callers already have), else the executor;
    BadInput for an unknown name, --ray-address without ray, or Ray missing."""
    from scigate.executor import make_executor

    check_executor(name, address)
    return None if name == "local" else make_executor(name, address=address)
