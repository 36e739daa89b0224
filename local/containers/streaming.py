"""An emulated streaming container: the layer's ``stream-bootstrap`` (``core.platform.lambda_runtime.loop``, as on AWS)
against a local Runtime API of its own (``local.containers.runtime_api``)."""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from local.containers.invocation import Failed, Invocation, Prelude
from local.containers.package import SOURCE_TREE
from local.containers.runtime_api import RuntimeApi
from stack.template import ROOT, FunctionSpec

logger = logging.getLogger("local.containers")


class InvocationFailed(Exception):
    """The function raised, timed out or crashed: API Gateway answers 502 (or cuts a streamed body short)."""


class StreamingContainer:
    """Runs ``core.platform.lambda_runtime.loop`` via the layer's ``stream-bootstrap``, the handler named as Lambda
    names it."""

    def __init__(
        self,
        spec: FunctionSpec,
        layer: str,
        env: dict[str, str],
        on_idle: Callable[[StreamingContainer], None],
        on_exit: Callable[[StreamingContainer], None] | None = None,
        *,
        python: str = SOURCE_TREE.runtime,
    ):
        self.spec = spec
        self.last_used = 0.0
        self._on_exit = on_exit
        self._closing = threading.Lock()
        self._closed = False
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
            ["/bin/sh", str(Path(layer) / "stream-bootstrap"), python],
            cwd=ROOT,
            env=env | lambda_env,
            process_group=0,  # Ctrl-C reaches the runner only, which lets requests in flight finish first
        )
        self._watcher = threading.Thread(target=self._watch, name=f"watch-{spec.logical_id}", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        status = self.process.wait()
        detail = f": {self.api.init_error}" if self.api.init_error else ""
        self.api.retire(f"the runtime exited with status {status}{detail}")
        if self._on_exit is not None:  # the pool forgets it, and its Runtime API is stopped (not on this thread)
            self._on_exit(self)

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
        with self._closing:
            if self._closed:
                return
            self._closed = True
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if threading.current_thread() is not self._watcher:
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
