"""Emulated Lambda containers: a bounded pool of worker processes per function.

A buffered function runs in ``local.containers.worker`` (a pipe protocol, ``local.containers.buffered``); a streaming
one in the layer's ``stream-bootstrap`` (``core.platform.lambda_runtime.loop``, as on AWS) against its own local
Runtime API (``local.containers.streaming``, ``local.containers.runtime_api``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from local.containers.buffered import Container, function_environment
from local.containers.capacity import PoolLimits, Throttled
from local.containers.fork_server import ForkServer
from local.containers.package import SOURCE_TREE, Python
from local.containers.streaming import InvocationFailed, StreamedResponse, StreamingContainer
from stack.template import ROOT, FunctionSpec

__all__ = ["Container", "ContainerPool", "InvocationFailed", "PoolLimits", "StreamedResponse", "Throttled"]
logger = logging.getLogger("local.containers")
AnyContainer = Any  # Container | StreamingContainer


class ContainerPool:
    """Reuses warm containers and starts more (cold starts) when all are busy, as Lambda does, within ``limits``.

    A request takes an idle container of its function, or starts one if the function and the runner
    are under their bounds and fewer than ``cold_starts`` are starting (an idle container of another
    function is stopped to make room), or waits up to ``queue_wait`` for either; else ``Throttled``.
    """

    def __init__(
        self,
        functions: dict[str, FunctionSpec],
        layers: list[str],
        base_env: dict[str, str],
        overrides: dict[str, str] | None = None,
        limits: PoolLimits | None = None,
        *,
        python: Python = SOURCE_TREE,
    ):
        self._functions = functions
        self._python = python
        self._overrides = overrides or {}
        self._layers = layers
        self._env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")} | base_env
        self.limits = limits or PoolLimits.from_environment()
        self._idle: dict[str, list[AnyContainer]] = {name: [] for name in functions}  # most recently used last
        self._count = dict.fromkeys(functions, 0)  # containers running or starting, per function
        self._waiting = dict.fromkeys(functions, 0)
        self._starting = 0
        self._all: set[AnyContainer] = set()
        self._retired: set[AnyContainer] = set()  # busy when ``retire`` was called: stopped once done
        self._cond = threading.Condition()
        self._fork_server: ForkServer | None = None
        self._closed = threading.Event()
        self._reaper = threading.Thread(target=self._reap, name="container-reaper", daemon=True)
        self._reaper.start()

    @property
    def size(self) -> int:
        with self._cond:
            return len(self._all) + self._starting

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        container = self._acquire(function, streaming=False)
        try:
            result = container.invoke(event)
        except Exception:
            self._discard(container)  # a failed container is never reused
            raise
        self._release(container)
        return result

    def invoke_stream(self, function: str, event: dict[str, Any]) -> StreamedResponse:
        """Invoke a streaming function; returns once its status and headers have arrived.

        The container is free again when its runtime asks for the next invocation (``_release``).
        """
        container = self._acquire(function, streaming=True)
        return container.invoke(event)  # a failed container closes itself, and its exit discards it

    def _acquire(self, function: str, *, streaming: bool) -> AnyContainer:
        limits = self.limits
        evicted: list[AnyContainer] = []
        deadline = time.monotonic() + min(limits.queue_wait, self._functions[function].timeout / 2)
        with self._cond:
            if self._waiting[function] >= limits.queue_depth:
                raise Throttled(function, runner_full=False, retry_after=1)
            self._waiting[function] += 1
            try:
                while True:
                    idle = self._idle[function]
                    while idle and not idle[-1].alive:
                        self._forget(idle.pop())
                    if idle:
                        return idle.pop()
                    room = self._count[function] < limits.per_function and self._starting < limits.cold_starts
                    if room and (len(self._all) + self._starting < limits.total or self._evict(function, evicted)):
                        self._count[function] += 1
                        self._starting += 1
                        break
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        full = self._count[function] < limits.per_function
                        raise Throttled(function, runner_full=full, retry_after=1 if not full else 2)
                    self._cond.wait(remaining)
            finally:
                self._waiting[function] -= 1
        for container in evicted:
            container.close()
        return self._start(function, streaming)

    def _start(self, function: str, streaming: bool) -> AnyContainer:
        spec = self._functions[function]
        container: AnyContainer
        try:
            if streaming:
                env = function_environment(spec, self._env, self._overrides)
                container = StreamingContainer(
                    spec, self._layers[0], env, on_idle=self._release, on_exit=self._exited, python=self._python.runtime
                )
            else:
                container = Container(
                    spec, self._layers, self._env, self._overrides, worker=self._python.worker,
                    fork_server=self._forks,
                )  # fmt: skip
        except Exception:
            with self._cond:
                self._count[function] -= 1
                self._starting -= 1
                self._cond.notify_all()
            raise
        with self._cond:
            self._starting -= 1
            self._all.add(container)
            self._cond.notify_all()
        return container

    def _forks(self) -> ForkServer | None:
        """The runner's fork server, started with the first buffered container, in the environment every function
        shares (what a library reads as it is imported is then what it would read in any of them)."""
        if not self._python.forks:
            return None
        with self._cond:
            if self._fork_server is None:
                shared = set.intersection(*(set(spec.environment.items()) for spec in self._functions.values()))
                env = self._env | dict(shared) | self._overrides
                env.pop("PYTHONPATH", None)  # each container takes its own, with its sitecustomize (fork_server)
                self._fork_server = ForkServer(self._python.runtime, env, str(ROOT))
            return self._fork_server

    def _evict(self, function: str, evicted: list[AnyContainer]) -> bool:
        """Make room for ``function``: the least recently used idle container of another function goes."""
        others = [(c.last_used, name) for name, idle in self._idle.items() if name != function for c in idle[:1]]
        if not others:
            return False
        victim = self._idle[min(others)[1]].pop(0)
        self._forget(victim)
        evicted.append(victim)
        return True

    def retire(self) -> int:
        """Let no container started so far take another request: the idle ones stop now, the busy ones when their
        request is done. The runner calls it once the demo is published, so that containers started after it write
        to its own stderr, not to the demo's log file (``local.demo.quiet``). The number stopped now."""
        with self._cond:
            idle = [container for containers in self._idle.values() for container in containers]
            for containers in self._idle.values():
                containers.clear()
            for container in idle:
                self._forget(container)
            self._retired = set(self._all)
        for container in idle:
            container.close()
        return len(idle)

    def _forget(self, container: AnyContainer) -> None:
        self._retired.discard(container)
        if container in self._all:
            self._all.discard(container)
            self._count[container.spec.logical_id] -= 1
            self._cond.notify_all()

    def _release(self, container: AnyContainer) -> None:
        with self._cond:
            retired = container in self._retired
            if not retired and container.alive and container in self._all:
                container.last_used = time.monotonic()
                self._idle[container.spec.logical_id].append(container)
                self._cond.notify_all()
        if retired:  # closed on a thread of its own: a streaming one's runtime API may be the caller
            threading.Thread(target=self._discard, args=(container,), name="container-retired", daemon=True).start()

    def _discard(self, container: AnyContainer) -> None:
        with self._cond:
            idle = self._idle[container.spec.logical_id]
            if container in idle:
                idle.remove(container)
            self._forget(container)
        container.close()

    def _exited(self, container: AnyContainer) -> None:
        """A streaming container's runtime exited (it failed, or was stopped): stop its Runtime API too."""
        threading.Thread(target=self._discard, args=(container,), name="container-exit", daemon=True).start()

    def _reap(self) -> None:
        """Stop containers idle longer than ``idle_seconds`` (Lambda reclaims idle ones too)."""
        while not self._closed.wait(min(30.0, self.limits.idle_seconds / 4)):
            cutoff, stale = time.monotonic() - self.limits.idle_seconds, []
            with self._cond:
                for idle in self._idle.values():
                    stale += [c for c in idle if c.last_used < cutoff]
                    idle[:] = [c for c in idle if c.last_used >= cutoff]
                for container in stale:
                    self._forget(container)
            for container in stale:
                container.close()
            if stale:
                logger.info("stopped %d idle containers", len(stale))

    def close(self) -> None:
        self._closed.set()
        with self._cond:  # not held while closing: a closing runtime API may call back into _release
            containers = list(self._all)
        for container in containers:
            container.close()
        if self._fork_server is not None:
            self._fork_server.close()
