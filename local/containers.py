"""Emulated Lambda containers: a pool of worker processes per function.

A buffered function runs in ``local.worker`` (a pipe protocol); a streaming one in
the layer's ``stream-bootstrap`` (``core.runtime``, as on AWS) against its own local
Runtime API (``local.runtime_api``).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
from typing import Any

from .streaming_containers import InvocationFailed, StreamedResponse, StreamingContainer
from .template import ROOT, FunctionSpec
from .worker import read_frame, write_frame


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
