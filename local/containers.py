"""Emulated Lambda containers: a pool of worker processes per function."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
from typing import Any

from .template import ROOT, FunctionSpec
from .worker import read_frame, write_frame


class InvocationFailed(Exception):
    """The function raised, timed out or crashed: API Gateway answers 502."""


class Container:
    def __init__(
        self, spec: FunctionSpec, layers: list[str], base_env: dict[str, str], overrides: dict[str, str] | None = None
    ):
        env = (
            base_env
            | spec.environment
            | (overrides or {})
            | {
                "AWS_LAMBDA_FUNCTION_NAME": spec.logical_id,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory),
                "AWS_LAMBDA_FUNCTION_TIMEOUT": str(spec.timeout),
            }
        )
        self.spec = spec
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local.worker", str(spec.code_uri), spec.handler, *layers],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=env,
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
        self._all: list[Container] = []
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

    def close(self) -> None:
        with self._lock:
            for container in self._all:
                container.close()
