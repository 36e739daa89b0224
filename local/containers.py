"""Emulated Lambda containers: a pool of worker processes per function.

A buffered function runs in ``local.worker`` (a pipe protocol); a streaming one runs
the layer's ``stream-bootstrap`` (``core.runtime``, as on AWS) against its own local
Runtime API (``local.runtime_api``).
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .runtime_api import Failed, Invocation, Prelude, RuntimeApi
from .template import ROOT, FunctionSpec
from .worker import read_frame, write_frame

logger = logging.getLogger("local.containers")


class InvocationFailed(Exception):
    """The function raised, timed out or crashed: API Gateway answers 502 (or cuts a streamed body short)."""


def _environment(spec: FunctionSpec, base_env: dict[str, str], overrides: dict[str, str] | None) -> dict[str, str]:
    return (
        base_env
        | spec.environment
        | (overrides or {})
        | {
            "AWS_LAMBDA_FUNCTION_NAME": spec.logical_id,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory),
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(spec.timeout),
        }
    )


class Container:
    def __init__(
        self, spec: FunctionSpec, layers: list[str], base_env: dict[str, str], overrides: dict[str, str] | None = None
    ):
        self.spec = spec
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local.worker", str(spec.code_uri), spec.handler, *layers],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=_environment(spec, base_env, overrides),
        )
        self._expect("ready", timeout=30)

    def _expect(self, kind: str, timeout: float) -> dict[str, Any]:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        message = read_frame(self.process.stdout) if ready else None
        if message is None:
            self.close()
            raise InvocationFailed(f"{self.spec.logical_id}: no {kind} within {timeout}s")
        return message

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        write_frame(self.process.stdin, {"type": "invoke", "event": event})
        message = self._expect("result", timeout=self.spec.timeout)
        if message["type"] != "result":
            raise InvocationFailed(f"{message.get('errorType')}: {message.get('errorMessage')}")
        return message["payload"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class StreamingContainer:
    """Runs ``core.runtime`` through the layer's ``stream-bootstrap``, with the handler named as Lambda names it."""

    def __init__(
        self, spec: FunctionSpec, layer: str, env: dict[str, str], on_idle: Callable[[StreamingContainer], None]
    ):
        self.spec = spec
        if not spec.environment.get("AWS_LAMBDA_EXEC_WRAPPER", "").endswith("/stream-bootstrap"):
            # Locally it streams all the same; on AWS the managed runtime would buffer it, and fail.
            logger.warning(
                "%s streams, but has no AWS_LAMBDA_EXEC_WRAPPER=/opt/python/stream-bootstrap", spec.logical_id
            )
        arn = f"arn:aws:lambda:local:000000000000:function:{spec.logical_id}"
        self.api = RuntimeApi(arn, on_idle=lambda: on_idle(self))
        lambda_env = {
            "AWS_LAMBDA_RUNTIME_API": self.api.address,
            "_HANDLER": spec.handler,
            "LAMBDA_TASK_ROOT": str(spec.code_uri),
        }
        self.process = subprocess.Popen(
            ["/bin/sh", str(Path(layer) / "stream-bootstrap"), sys.executable], cwd=ROOT, env=env | lambda_env
        )
        self._watcher = threading.Thread(target=self._watch, name=f"watch-{spec.logical_id}", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        status = self.process.wait()
        detail = f": {self.api.init_error}" if self.api.init_error else ""
        self.api.retire(f"the runtime exited with status {status}{detail}")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def invoke(self, event: dict[str, Any]) -> StreamedResponse:
        """Returns once the prelude (status and headers) has arrived."""
        invocation = Invocation(event, self.spec.timeout)
        self.api.submit(invocation)
        prelude = invocation.receive()
        if not isinstance(prelude, Prelude):
            self.close()
            reason = prelude.reason if isinstance(prelude, Failed) else "no prelude"
            raise InvocationFailed(f"{self.spec.logical_id}: {reason}")
        return StreamedResponse(prelude, invocation, self)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._watcher.join()
        self.api.close()


class StreamedResponse:
    """A function's response as it streams: ``status`` and ``headers`` at once, then ``chunks``."""

    def __init__(self, prelude: Prelude, invocation: Invocation, container: StreamingContainer):
        self.status = prelude.status
        self.headers = prelude.headers
        self.chunks: Iterator[bytes] = self._receive()
        self._invocation = invocation
        self._container = container
        self._over = False

    def _receive(self) -> Iterator[bytes]:
        while isinstance(message := self._invocation.receive(), bytes):
            yield message
        self._over = True
        if isinstance(message, Failed):  # after the prelude: the body just stops
            self._container.close()  # a failed container is never reused
            raise InvocationFailed(f"{self._container.spec.logical_id}: {message.reason}")

    def close(self) -> None:
        """If the body was not read to its end, the reader went away: abort the invocation."""
        if not self._over:
            self._invocation.abort()


class ContainerPool:
    """Reuses warm containers; starts another (a cold start) when all are busy, as Lambda does."""

    def __init__(
        self,
        functions: dict[str, FunctionSpec],
        layers: list[str],
        base_env: dict[str, str],
        overrides: dict[str, str] | None = None,
    ):
        self._functions = functions
        self._overrides = overrides or {}
        self._layers = layers
        self._env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")} | base_env
        self._idle: dict[str, list[Container]] = {name: [] for name in functions}
        self._idle_streams: dict[str, list[StreamingContainer]] = {name: [] for name in functions}
        self._all: list[Container | StreamingContainer] = []
        self._lock = threading.Lock()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            container = self._idle[function].pop() if self._idle[function] else None
        if container is None:
            container = Container(self._functions[function], self._layers, self._env, self._overrides)
            with self._lock:
                self._all.append(container)
        try:
            result = container.invoke(event)
        except Exception:
            container.close()  # a failed container is never reused
            raise
        with self._lock:
            self._idle[function].append(container)
        return result

    def invoke_stream(self, function: str, event: dict[str, Any]) -> StreamedResponse:
        """Invoke a streaming function; returns once its status and headers have arrived."""
        with self._lock:
            idle = self._idle_streams[function]
            idle[:] = [c for c in idle if c.alive]  # one that failed after asking for more work is dead
            container = idle.pop() if idle else None
        if container is None:
            spec = self._functions[function]
            env = _environment(spec, self._env, self._overrides)
            container = StreamingContainer(spec, self._layers[0], env, on_idle=self._stream_idle)
            with self._lock:
                self._all.append(container)
        return container.invoke(event)  # a failed container closes itself

    def _stream_idle(self, container: StreamingContainer) -> None:
        """Its runtime asked for the next invocation: the container can take another request."""
        with self._lock:
            if container.alive:
                self._idle_streams[container.spec.logical_id].append(container)

    def close(self) -> None:
        with self._lock:  # not held while closing: a closing runtime API may call back into _stream_idle
            containers = list(self._all)
        for container in containers:
            container.close()
