"""The `--executor` / `--ray-address` options shared by the verbs that can scale out."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from scigate.cli._validate import library_option
from scigate.errors import BadInput, MissingExtra

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
    """BadInput before any work for an unknown executor, --ray-address without ray, or
    --executor ray without Ray installed."""
    from scigate.executor import EXECUTORS, ray_available

    if name not in EXECUTORS:
        raise BadInput(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}")
    if address and name != "ray":
        raise BadInput("--ray-address needs --executor ray")
    if name == "ray" and not ray_available()[0]:
        raise MissingExtra("--executor ray", "ray", "ray")


def open_executor(name: str, address: str | None) -> Any:
    """None for `local` (the in-process path callers already have), else the executor;
    BadInput for an unknown name, --ray-address without ray, or Ray missing."""
    from scigate.executor import make_executor

    check_executor(name, address)
    return None if name == "local" else make_executor(name, address=address)
