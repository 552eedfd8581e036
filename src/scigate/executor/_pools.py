"""Warm sandbox pools shared per Ray node: one pool actor per (node, preload), found
through a registry actor that the driver owns.

Without this every Ray worker process would start its own warm servers (N worker
processes x domains per node, each paying the cold start). Instead, a task's warm run
(`scigate.sandbox` hands it over through `set_warm_delegate`) goes to the pool actor of
its own node: the task prepares the workspace on the node's file system as before, the
actor runs `WarmRun.execute_here` (the same `execute_warm`: limits, isolation, supervisor,
kill on timeout) in its warm pool and returns the `SandboxResult`.

Ownership: the driver's `RayExecutor` creates the registry (on its node, not detached);
the registry creates the pool actors lazily, the first time a task of a node asks for
its preload, pinned to that node (hard affinity), under a deterministic name. Actors are
owned by the registry, so they end with it: at `RayExecutor.close()` (which also stops
their servers first) or with the driver; never left behind on a long-lived cluster as
detached actors would be. A node that joins later gets its actor on its first warm run; a
node lost takes its actor (and the runs in it) along, and the retried task uses the
actor of the node it lands on.

Cancellation: a task whose run is cancelled (its `cancel` event, or an interrupt while it
waits) cancels the run in the actor, the same kill as a local cancel. A task whose process
dies outright leaves its run to the server's wall clock (`Limits.wall_seconds`, enforced
by the supervisor in the warm server, with the actor's backstop after it), as for any run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
import uuid
from typing import Any

from scigate._secrets import redact
from scigate.executor._limiter import NAMESPACE
from scigate.sandbox import (
    DelegateUnavailable,
    SandboxResult,
    WarmRun,
    WarmRunLost,
    set_warm_delegate,
    stop_warm_servers,
    warm_status,
)

LOOKUP_SECONDS = 60.0  # a new actor's process start, on a loaded node
POLL_SECONDS = 0.1  # how often a waiting task looks at its cancel event
STOP_SECONDS = 30.0
EARLY_SECONDS = 600.0  # how long a cancel waits for a run that has not reached the actor
CONTROL = "control"  # the pool actor's concurrency group for cancel, status and shutdown

_installed: Any = None  # the delegate installed in this process


def pool_name(python: str, preload: tuple[str, ...], node_id: str) -> str:
    """`scigate-sandbox:<first module>-<digest of python and preload>:<node id>`."""
    digest = hashlib.sha1("\0".join((python, *preload)).encode()).hexdigest()[:10]
    return f"scigate-sandbox:{preload[0] if preload else 'none'}-{digest}:{node_id}"


class NodeSandboxPool:
    """The warm pools of one node for one preload (a threaded Ray actor, see `PoolRegistry`).

    `run` calls run concurrently in the actor's threads; its pools hold at most the node's
    CPU count of servers (`$SCIGATE_WARM_SERVERS` wins), as a process's own pools would.
    """

    def __init__(self, node_id: str, preload: tuple[str, ...], cpus: int) -> None:
        os.environ.setdefault("SCIGATE_WARM_SERVERS", str(max(1, cpus)))
        self.node_id, self.preload = node_id, preload
        self.cancels: dict[str, threading.Event] = {}
        # cancels that arrived before their run: the control threads and the run threads
        # are served separately, so a cancel sent just after the call can overtake it
        self.early: dict[str, float] = {}
        self.lock = threading.Lock()

    def run(self, run: WarmRun, run_id: str) -> SandboxResult:
        """Run `run` in this node's warm pool; `cancel(run_id)` kills it, also when the
        cancel reached the actor first."""
        event = threading.Event()
        with self.lock:
            self.cancels[run_id] = event
            if self.early.pop(run_id, None) is not None:
                event.set()
        try:
            return run.execute_here(event)
        finally:
            with self.lock:
                self.cancels.pop(run_id, None)

    def cancel(self, run_id: str) -> bool:
        """Kill run `run_id` (as cancelling a local run does); False when it is not running
        yet (it is then cancelled when it starts) or any more."""
        now = time.monotonic()
        with self.lock:
            event = self.cancels.get(run_id)
            if event is None:
                # a run that never comes (its task died) is forgotten after EARLY_SECONDS
                self.early = {k: t for k, t in self.early.items() if now - t < EARLY_SECONDS}
                self.early[run_id] = now
        if event is not None:
            event.set()
        return event is not None

    def status(self) -> dict[str, Any]:
        """Node, process, runs in flight and this process's `warm_status()`."""
        import ray

        with self.lock:
            running = len(self.cancels)
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "preload": list(self.preload),
            "running": running,
            "pools": warm_status(),
        }

    def shutdown(self) -> None:
        """Stop the warm servers (their directories are removed)."""
        stop_warm_servers()


class PoolRegistry:
    """Creates and lists the pool actors (a Ray actor on the driver's node).

    Its methods run one at a time, so two tasks asking at once get the same actor.
    """

    def __init__(self) -> None:
        import ray

        self.pools: dict[str, Any] = {}
        # the pool actors' names are per node and preload; two drivers on one cluster
        # (two registries) keep theirs apart in a namespace of their own
        self.namespace = f"{NAMESPACE}-pools-{ray.get_runtime_context().get_actor_id()[:12]}"

    def pool(self, node_id: str, python: str, preload: tuple[str, ...]) -> Any:
        """The pool actor of (`node_id`, `python`, `preload`), created on first use; one
        that died (its node lost, or killed) and was forgotten is replaced."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        name = pool_name(python, preload, node_id)
        if name in self.pools:
            return self.pools[name]
        cpus = next(
            (int(n["Resources"].get("CPU", 1)) for n in ray.nodes() if n["NodeID"] == node_id),
            1,
        )
        actor = (
            # runs hold a thread each; cancel, status and shutdown have threads of their
            # own (the `CONTROL` group), so they are never queued behind runs
            ray.remote(concurrency_groups={CONTROL: 2})(NodeSandboxPool)
            .options(
                name=name,
                namespace=self.namespace,
                get_if_exists=True,
                num_cpus=0,
                max_restarts=0,
                max_concurrency=2 * max(1, cpus) + 4,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            )
            .remote(node_id, preload, cpus)
        )
        self.pools[name] = actor
        return actor

    def forget(self, name: str, actor_id: str) -> None:
        """Drop pool actor `name` if it is still the one (`actor_id`) that died; a later
        `pool` call makes a new one."""
        actor = self.pools.get(name)
        if actor is not None and actor._actor_id.hex() == actor_id:
            del self.pools[name]

    def names(self) -> list[str]:
        """Names of the pool actors made so far (dead ones included until forgotten)."""
        return sorted(self.pools)

    def status(self) -> dict[str, dict[str, Any]]:
        """Each live pool actor's `status()` by name; dead ones are forgotten."""
        import ray

        refs = {name: _control(actor.status).remote() for name, actor in self.pools.items()}
        found = {}
        for name, ref in refs.items():
            try:
                found[name] = ray.get(ref, timeout=STOP_SECONDS)
            except ray.exceptions.RayError:
                self.pools.pop(name, None)
        return found

    def shutdown(self) -> int:
        """Stop every pool actor's servers, then end the actors; how many there were."""
        import ray

        actors = list(self.pools.values())
        self.pools.clear()
        refs = [_control(a.shutdown).remote() for a in actors]
        ray.wait(refs, num_returns=len(refs), timeout=STOP_SECONDS)
        for actor in actors:
            ray.kill(actor)
        return len(actors)


def registry_actor() -> Any:
    """A new pool registry on this (the driver's) node, owned by this process."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    # hard: with a soft one it was seen on another node, whose loss would take it along;
    # the driver's node ends the run anyway
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    return ray.remote(num_cpus=0)(PoolRegistry).options(scheduling_strategy=here).remote()


def close_registry(registry: Any) -> None:
    """End the registry's pool actors (servers stopped first) and the registry."""
    import ray

    with contextlib.suppress(ray.exceptions.RayError):  # its actors end with it anyway
        ray.get(registry.shutdown.remote(), timeout=2 * STOP_SECONDS)
    ray.kill(registry)


class NodePools:
    """The delegate a Ray worker installs: warm runs go to its node's pool actor."""

    name = "Ray node pool actor"

    def __init__(self, registry: Any) -> None:
        import ray

        self.registry = registry
        self.node_id = ray.get_runtime_context().get_node_id()
        self.actors: dict[str, Any] = {}
        self.used: dict[str, int] = {}  # pool actor name -> runs it served for this process
        self.lock = threading.Lock()

    def _actor(self, name: str, run: WarmRun, cancel: threading.Event | None) -> Any:
        """The pool actor for `run` (asked of the registry the first time); None when
        `cancel` is set while the registry is asked."""
        import ray

        with self.lock:
            actor = self.actors.get(name)
        if actor is None:
            try:
                ref = self.registry.pool.remote(self.node_id, run.argv[0], run.preload)
                end = time.monotonic() + LOOKUP_SECONDS
                while not ray.wait([ref], timeout=POLL_SECONDS)[0]:
                    if cancel is not None and cancel.is_set():
                        return None
                    if time.monotonic() > end:
                        raise ray.exceptions.GetTimeoutError(
                            f"the registry did not answer within {LOOKUP_SECONDS:g} s"
                        )
                actor = ray.get(ref)
            except (ray.exceptions.RayError, ValueError) as exc:
                raise DelegateUnavailable(f"no pool actor for this node: {_why(exc)}") from exc
            with self.lock:
                self.actors[name] = actor
        return actor

    def __call__(self, run: WarmRun, cancel: threading.Event | None) -> SandboxResult:
        import ray
        from ray.exceptions import ActorDiedError, ActorUnavailableError, RayTaskError

        name = pool_name(run.argv[0], run.preload, self.node_id)
        actor = self._actor(name, run, cancel)
        if actor is None or (cancel is not None and cancel.is_set()):
            # cancelled before it was sent: here, where it starts nothing (a cancelled
            # result), rather than waiting for an actor to exist only to cancel it there
            return run.execute_here(cancel)
        run_id = uuid.uuid4().hex
        try:
            ref = actor.run.remote(run, run_id)
            if not self._wait(ref, actor, run_id, cancel):
                # queued behind busy run threads: it is cancelled when it gets one
                return run.execute_here(cancel)
            result = ray.get(ref)
        except RayTaskError as exc:  # raised by the run itself (BadInput, say): as here
            cause = getattr(exc, "cause", None)
            raise (cause if isinstance(cause, Exception) else exc) from None
        except (ActorDiedError, ActorUnavailableError) as exc:
            with self.lock:
                self.actors.pop(name, None)
            # before the job fails: its retry must not be given the dead actor again
            with contextlib.suppress(ray.exceptions.RayError):
                ray.get(self.registry.forget.remote(name, actor._actor_id.hex()), timeout=10)
            raise WarmRunLost(f"the pool actor {name} was lost: {_why(exc)}") from exc
        with self.lock:
            self.used[name] = self.used.get(name, 0) + 1
        # the actor redacted with its environment; credentials this process has (set after
        # the worker started, say) are removed too, as a local run would
        return result.model_copy(
            update={"stdout": redact(result.stdout), "stderr": redact(result.stderr)}
        )

    def _wait(self, ref: Any, actor: Any, run_id: str, cancel: threading.Event | None) -> bool:
        """Until the run is over; a set `cancel` (or an interrupt here) kills it in the actor.
        False when it was cancelled before it started there (all the actor's run threads
        busy, say): the actor keeps the cancel for it, and nothing here waits for it."""
        import ray

        try:
            while not ray.wait([ref], timeout=POLL_SECONDS)[0]:
                if cancel is not None and cancel.is_set():
                    running = _control(actor.cancel).remote(run_id)
                    cancel = None  # once; a running run now ends within the kill's grace
                    with contextlib.suppress(ray.exceptions.RayError):
                        if not ray.get(running, timeout=LOOKUP_SECONDS):
                            return bool(ray.wait([ref], timeout=0)[0])  # over already?
        except BaseException:
            _control(actor.cancel).remote(run_id)
            raise
        return True


def _control(method: Any) -> Any:
    """`method` of a pool actor, called in its control threads."""
    return method.options(concurrency_group=CONTROL)


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"


def install_pools(registry: Any) -> None:
    """Send this process's warm runs to its node's pool actors (idempotent; a worker
    process reused by another executor switches to that executor's registry)."""
    global _installed
    if _installed is not None and _installed.registry == registry:
        return
    _installed = NodePools(registry)
    set_warm_delegate(_installed, NodePools.name)


def uninstall_pools() -> None:
    """Back to this process's own warm pools."""
    global _installed
    set_warm_delegate(None)
    _installed = None


def installed_pools() -> NodePools | None:
    """The delegate installed in this process, if any."""
    return _installed
