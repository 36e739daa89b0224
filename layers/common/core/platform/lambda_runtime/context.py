"""The ``context`` a handler receives from ``core.platform.lambda_runtime.loop``: built from the invocation's
headers."""

from __future__ import annotations

import json
import os
import time
from http.client import HTTPMessage
from typing import Any


class Context:
    """The ``context`` argument, with the attributes Powertools and handlers read."""

    def __init__(self, headers: HTTPMessage):
        env = os.environ
        self.aws_request_id = headers["Lambda-Runtime-Aws-Request-Id"]
        self.invoked_function_arn = headers.get("Lambda-Runtime-Invoked-Function-Arn", "")
        self.function_name = env.get("AWS_LAMBDA_FUNCTION_NAME", "")
        self.function_version = env.get("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        self.memory_limit_in_mb = int(env.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"))
        self.log_group_name = env.get("AWS_LAMBDA_LOG_GROUP_NAME", "")
        self.log_stream_name = env.get("AWS_LAMBDA_LOG_STREAM_NAME", "")
        # Only mobile SDK invocations carry these (decoded JSON here); API Gateway never does.
        self.client_context = _json_header(headers, "Lambda-Runtime-Client-Context")
        self.identity = _json_header(headers, "Lambda-Runtime-Cognito-Identity")
        self._deadline_ms = int(headers.get("Lambda-Runtime-Deadline-Ms", "0"))

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self._deadline_ms - int(time.time() * 1000))


def _json_header(headers: HTTPMessage, name: str) -> Any:
    value = headers.get(name)
    return json.loads(value) if value else None
