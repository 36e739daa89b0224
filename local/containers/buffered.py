"""One emulated buffered Lambda container: a ``local.containers.worker`` process answering invocations over a pipe."""

from __future__ import annotations

import select
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

from local.containers.fork_server import ForkedProcess, ForkServer
from local.containers.package import SOURCE_TREE
from local.containers.streaming import InvocationFailed
from local.containers.worker import read_frame, write_frame
from stack.template import ROOT, FunctionSpec


def function_environment(
    spec: FunctionSpec, base_env: dict[str, str], overrides: dict[str, str] | None
) -> dict[str, str]:
    """A container's environment: the runner's, the template's for the function, overrides, and Lambda's own."""
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
        self,
        spec: FunctionSpec,
        layers: list[str],
        base_env: dict[str, str],
        overrides: dict[str, str] | None = None,
        *,
        worker: Sequence[str] = SOURCE_TREE.worker,
        fork_server: Callable[[], ForkServer | None] | None = None,
    ):
        """When ``fork_server`` gives one, the container is forked from it (given the worker's arguments); else
        ``worker`` starts it as a new process."""
        self.spec = spec
        self.last_used = 0.0
        arguments, env = [str(spec.code_uri), spec.handler, *layers], function_environment(spec, base_env, overrides)
        self.process: subprocess.Popen[bytes] | ForkedProcess
        if fork_server is not None and (server := fork_server()) is not None:
            self.process = server.spawn(arguments, env, str(ROOT))
        else:
            self.process = subprocess.Popen(
                [*worker, *arguments],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=ROOT,
                env=env,
                process_group=0,  # Ctrl-C reaches the runner only, which lets requests in flight finish first
            )
        assert self.process.stdin is not None and self.process.stdout is not None  # both are pipes
        self._to_worker, self._from_worker = self.process.stdin, self.process.stdout
        self._expect("ready", timeout=30)

    def _expect(self, kind: str, timeout: float) -> dict[str, Any]:
        ready, _, _ = select.select([self._from_worker], [], [], timeout)
        message = read_frame(self._from_worker) if ready else None
        if message is None:
            self.close()
            raise InvocationFailed(f"{self.spec.logical_id}: no {kind} within {timeout}s")
        return message

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        write_frame(self._to_worker, {"type": "invoke", "event": event})
        message = self._expect("result", timeout=self.spec.timeout)
        if message["type"] != "result":
            raise InvocationFailed(f"{message.get('errorType')}: {message.get('errorMessage')}")
        return message["payload"]

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
