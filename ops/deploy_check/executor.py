"""A LocalStack Lambda executor that needs no Docker: functions become Active, invocations answer an error.

LocalStack's only executor runs each function in a Docker container; without a Docker engine a
function never becomes Active and ``sam deploy`` fails. This one is loaded inside the LocalStack
process (plux namespace ``localstack.lambda.runtime_executor``, registered by localstack.py) and
runs nothing: the deploy check proves the stack deploys, not that the functions run.
Interface: localstack/services/lambda_/invocation/runtime_executor.py (RuntimeExecutor).
"""

from __future__ import annotations

import json
from typing import Any

from localstack.services.lambda_.invocation.lambda_models import (  # type: ignore[import-not-found]
    FunctionVersion,
    InvocationResult,
)
from localstack.services.lambda_.invocation.plugins import RuntimeExecutorPlugin  # type: ignore[import-not-found]
from localstack.services.lambda_.invocation.runtime_executor import RuntimeExecutor  # type: ignore[import-not-found]

NOT_RUN = "make deploy-check's executor deploys functions but does not run them"


class ActiveOnlyExecutor(RuntimeExecutor):  # type: ignore[misc]  # localstack is not installed in mypy's venv
    """One execution environment: starting it succeeds at once, and every invocation is a function error."""

    def start(self, env_vars: dict[str, Any]) -> None:
        self.env_vars = {name: str(value) for name, value in env_vars.items()}  # numbers arrive as ints

    def stop(self) -> None:
        pass

    def get_address(self) -> str:
        return "127.0.0.1"

    def get_endpoint_from_executor(self) -> str:
        return "127.0.0.1"

    def get_runtime_endpoint(self) -> str:
        return f"http://127.0.0.1/_localstack_lambda/{self.id}"

    def invoke(self, payload: dict[str, str]) -> Any:
        error = {"errorType": "NotRun", "errorMessage": NOT_RUN}
        return InvocationResult(
            request_id=payload["invoke-id"], payload=json.dumps(error).encode(), is_error=True, logs=NOT_RUN + "\n"
        )

    def get_logs(self) -> str:
        return ""

    @classmethod
    def prepare_version(cls, function_version: FunctionVersion) -> None:
        pass  # nothing to unpack: the code is never run

    @classmethod
    def cleanup_version(cls, function_version: FunctionVersion) -> None:
        pass


class ExecutorPlugin(RuntimeExecutorPlugin):  # type: ignore[misc]
    name = "deploy-check"

    def load(self, *args: Any, **kwargs: Any) -> type[ActiveOnlyExecutor]:
        return ActiveOnlyExecutor
