"""The Ray executor: jobs run as Ray tasks on a cluster (or a local Ray started here)."""

from __future__ import annotations

import socket
from typing import Any

from scigate.errors import BadInput
from scigate.executor._base import DEFAULT_RETRIES, Executor
from scigate.executor._job import Job, Shared
from scigate.executor._limiter import install_limiter, limiter_actor, uninstall_limiter
from scigate.executor._pools import close_registry, install_pools, registry_actor, uninstall_pools
from scigate.sandbox import allow_unisolated, unisolated_allowed


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BadInput(
            "--executor ray needs Ray: pip install -e '.[ray]' (or 'ray[default]>=2.40')"
        ) from None
    return ray


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """BadInput when a `host:port` address does not accept a connection (Ray itself would
    retry for minutes); `auto` and `ray://` addresses are left to Ray."""
    host, sep, port = address.rpartition(":")
    if address == "auto" or "://" in address or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise BadInput(f"no Ray cluster answers at {address}: {exc}") from None


def _call(
    fn: Any, args: tuple, kwargs: dict, limiter: Any, pools: Any, unisolated: bool = False
) -> tuple[Any, str]:
    """Runs on a worker: the llm layer uses the cluster limiter and the sandbox the node's
    warm pool actors; whether runs may go unisolated is the driver's decision (its
    `--allow-unisolated`), not the worker's environment's; then the job runs."""
    import ray

    allow_unisolated(unisolated)

    if limiter is not None:
        install_limiter(limiter)
    if pools is not None:
        install_pools(pools)
    else:  # a worker process reused from an executor that had pools
        uninstall_pools()
    return fn(*args, **kwargs), ray.get_runtime_context().get_node_id()


class RayExecutor(Executor):
    """Jobs as Ray tasks (one CPU each). Connects to `address`, or starts a local Ray with
    `num_cpus`; an already initialised Ray (a test cluster) is used as it is. With
    `node_pools` (the default) warm sandbox runs of the tasks go to one pool actor per
    node and preload (`_pools`), else each worker process keeps its own warm servers."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        retries: int = DEFAULT_RETRIES,
        runtime_env: dict[str, Any] | None = None,
        node_pools: bool = True,
    ) -> None:
        super().__init__(retries)
        ray = _import_ray()
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            try:
                if address:
                    check_reachable(address)
                    ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
                else:
                    ray.init(
                        num_cpus=num_cpus,
                        include_dashboard=False,
                        runtime_env=runtime_env,
                        log_to_driver=False,
                    )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise BadInput(
                    f"cannot connect to Ray at {address or 'a local start'}: {exc}"
                ) from None
        # Retries are the driver's (Executor.run), so attempts are counted and a job lost
        # with its node is resubmitted to the nodes left.
        self._remote = ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(_call)
        self.limiter = limiter_actor()
        install_limiter(self.limiter)
        self.pools = registry_actor() if node_pools else None

    @property
    def workers(self) -> int:
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def nodes(self) -> int:
        """Alive nodes of the cluster."""
        import ray

        return sum(1 for n in ray.nodes() if n.get("Alive"))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "nodes": self.nodes()}

    def _node_cpus(self) -> int:
        """The CPUs of the largest alive node."""
        import ray

        cpus = [n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
        return max(1, int(max(cpus, default=1)))

    def share(self, value: Any) -> Shared:
        import ray

        return Shared(ref=ray.put(value))

    async def _attempt(self, job: Job) -> tuple[Any, str | None]:
        from ray.exceptions import RayTaskError

        try:
            remote = self._remote
            if job.num_cpus > 1:  # never more than a node has: Ray would wait for ever
                remote = remote.options(num_cpus=min(job.num_cpus, self._node_cpus()))
            return await remote.remote(
                job.fn, job.args, job.kwargs, self.limiter, self.pools, unisolated_allowed()
            )
        except RayTaskError as exc:  # the job's own exception, not Ray's wrapper
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise

    def close(self) -> None:
        import ray

        uninstall_limiter()
        if self.pools is not None:
            close_registry(self.pools)
            self.pools = None
        if self._owns_ray:
            ray.shutdown()


def cluster_status(address: str) -> dict[str, Any]:
    """The nodes of the Ray cluster at `address` (alive or not, CPUs of each) and its CPU
    total; {"error": reason} when Ray is missing or the cluster does not answer."""
    try:
        import ray
    except ImportError as exc:
        return {"address": address, "error": f"Ray is not installed: {exc}"}
    if ray.is_initialized():
        return {"address": address, "error": "Ray is already initialised in this process"}
    try:
        check_reachable(address)
        ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    except BadInput as exc:
        return {"address": address, "error": str(exc)}
    except Exception as exc:  # reported, never a crash
        return {"address": address, "error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
    try:
        nodes = [
            {
                "node_id": n["NodeID"],
                "address": n.get("NodeManagerAddress"),
                "alive": bool(n.get("Alive")),
                "cpus": n.get("Resources", {}).get("CPU", 0),
            }
            for n in ray.nodes()
        ]
        cpus = ray.cluster_resources().get("CPU", 0)
    finally:
        ray.shutdown()
    return {"address": address, "nodes": nodes, "cpus": cpus}
