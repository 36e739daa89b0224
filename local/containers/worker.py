"""One emulated Lambda container: imports a handler once, then serves invocations over a pipe.

Like Lambda, each container runs one invocation at a time with its own environment
and module state; the runner starts more containers when requests overlap. Frames
are a 4-byte big-endian length and a JSON document.

    python -m local.containers.worker <code_dir> <module.function> <layer_dir>...
"""

from __future__ import annotations

import importlib
import json
import os
import struct
import sys
import time
import traceback
import uuid
from typing import IO, Any


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    header = stream.read(4)
    if len(header) < 4:
        return None
    (length,) = struct.unpack(">I", header)
    return json.loads(stream.read(length))


def write_frame(stream: IO[bytes], message: dict[str, Any]) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


class LambdaContext:
    def __init__(self, function_name: str, memory: int, timeout: int):
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:local:000000000000:function:{function_name}"
        self.memory_limit_in_mb = memory
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + timeout

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main() -> None:
    code_dir, handler_ref, *layer_dirs = sys.argv[1:]
    # The protocol owns the real stdout; anything the handler prints goes to stderr (the log).
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.path[:0] = [code_dir, *layer_dirs]
    module_name, function_name = handler_ref.rsplit(".", 1)
    handler = getattr(importlib.import_module(module_name), function_name)
    name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "local")
    memory = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"))
    timeout = int(os.environ.get("AWS_LAMBDA_FUNCTION_TIMEOUT", "3"))
    write_frame(protocol_out, {"type": "ready"})
    stdin = sys.stdin.buffer
    while (message := read_frame(stdin)) is not None:
        try:
            result = handler(message["event"], LambdaContext(name, memory, timeout))
            write_frame(protocol_out, {"type": "result", "payload": result})
        except Exception as exc:  # what Lambda reports as a function error
            traceback.print_exc()
            write_frame(protocol_out, {"type": "error", "errorType": type(exc).__name__, "errorMessage": str(exc)})


if __name__ == "__main__":
    main()
