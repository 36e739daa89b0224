"""Counting the AWS calls of the service's own clients (``core.platform.aws``) and failing the i-th one on purpose.

The hook is botocore's ``before-call`` event: a handler that returns ``(http, parsed)`` stands in
for the wire, so botocore itself turns the error into the exception class a real client raises
(``client.exceptions.ConditionalCheckFailedException``, ``TransactionCanceledException`` with its
``CancellationReasons``, or a plain ``ClientError`` with the code and HTTP status). A fault here is
what the application sees once botocore's own retries are spent. Timeouts are botocore's classes:
a connect timeout before the request was sent, a read timeout *after* moto applied it (the reply
was lost): the hardest case, since the write happened but the caller cannot know.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders
from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError

from tests.support.core_clients import wrap_core_clients

INJECTED_SERVICES = ("dynamodb", "s3")  # the brief's scope; other calls (Secrets Manager, SQS) are counted only


@dataclass(frozen=True)
class Fault:
    """One kind of failure: an AWS error code with its HTTP status, or a timeout (``code`` None)."""

    name: str
    service: str
    code: str | None = None
    status: int = 400
    timeout: type[ConnectTimeoutError | ReadTimeoutError] | None = None
    conditional: bool = False  # only at conditional writes (elsewhere DynamoDB never answers it)


THROUGHPUT = Fault("throughput", "dynamodb", "ProvisionedThroughputExceededException", 400)
THROTTLING = Fault("throttling", "dynamodb", "ThrottlingException", 400)
INTERNAL = Fault("internal", "dynamodb", "InternalServerError", 500)
UNAVAILABLE = Fault("unavailable", "dynamodb", "ServiceUnavailable", 503)
CONDITIONAL = Fault("conditional", "dynamodb", conditional=True)  # CCF, or TransactionCanceled[ConditionalCheckFailed]
S3_SLOWDOWN = Fault("slowdown", "s3", "SlowDown", 503)
S3_INTERNAL = Fault("internal", "s3", "InternalError", 500)
S3_UNAVAILABLE = Fault("unavailable", "s3", "ServiceUnavailable", 503)


def _timeouts(service: str) -> tuple[Fault, Fault]:
    return Fault("connect-timeout", service, timeout=ConnectTimeoutError), Fault(
        "read-timeout-applied", service, timeout=ReadTimeoutError
    )


@dataclass(frozen=True)
class Call:
    """One AWS call as recorded: ``dynamodb.UpdateItem``, and whether it carries a write condition."""

    service: str
    operation: str
    conditional: bool = False

    @property
    def label(self) -> str:
        return f"{self.service}.{self.operation}"


def faults_for(call: Call, position: int) -> list[Fault]:
    """The faults tried at one call: a throttle, a 5xx, both timeouts, and a lost race where one can happen.

    No code of the service tells one throttling code (or one 5xx) from another, so the two of each
    alternate by position rather than doubling the cases; every code still occurs in every operation.
    """
    even = position % 2 == 0
    if call.service == "dynamodb":
        kinds = [THROUGHPUT if even else THROTTLING, INTERNAL if even else UNAVAILABLE, *_timeouts("dynamodb")]
        return kinds + [CONDITIONAL] * call.conditional
    if call.service == "s3":
        return [S3_SLOWDOWN, S3_INTERNAL if even else S3_UNAVAILABLE, *_timeouts("s3")]
    return []


def _conditions(service: str, operation: str, params: dict[str, Any]) -> list[bool]:
    """Which parts of a DynamoDB write carry a condition (one per transaction item; one for a single write)."""
    if service != "dynamodb":
        return []
    body = json.loads(params.get("body") or b"{}")
    if operation == "TransactWriteItems":
        return [any("ConditionExpression" in part for part in item.values()) for item in body["TransactItems"]]
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return ["ConditionExpression" in body]
    return []


def _response(fault: Fault, operation: str, conditions: list[bool]) -> tuple[AWSResponse, dict[str, Any]]:
    code, status, extra = fault.code, fault.status, {}
    if fault.conditional:
        if operation == "TransactWriteItems":
            # As DynamoDB reports a lost race: the first conditioned item failed, the others "None".
            first = conditions.index(True)
            reasons = [{"Code": "ConditionalCheckFailed" if i == first else "None"} for i in range(len(conditions))]
            code, extra = "TransactionCanceledException", {"CancellationReasons": reasons}
        else:
            code = "ConditionalCheckFailedException"
    message = f"injected {fault.name}"
    parsed = {
        "Error": {"Code": code, "Message": message},
        "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}, "RequestId": "injected"},
        "Message": message,
    } | extra
    return AWSResponse("https://injected.invalid/", status, HTTPHeaders(), None), parsed


@dataclass(frozen=True)
class Plan:
    """Fail call number ``position`` (0-based, counted while armed) with ``fault``."""

    position: int
    fault: Fault


class Injector:
    """Attached to every client ``core.platform.aws`` creates; counts (and may fail) calls only while armed."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._armed = False
        self._plan: Plan | None = None
        self.fired = False

    def attach(self, client: Any) -> Any:
        events = client.meta.events
        events.register("before-call.*.*", self._before, unique_id="faults-before")
        events.register("after-call.*.*", self._after, unique_id="faults-after")
        return client

    @contextmanager
    def armed(self, plan: Plan | None = None) -> Iterator[list[Call]]:
        self.calls, self._plan, self.fired, self._armed = [], plan, False, True
        try:
            yield self.calls
        finally:
            self._armed = False

    def _before(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> Any:
        if not self._armed:
            return None
        service = model.service_model.endpoint_prefix
        conditions = _conditions(service, model.name, params)
        index = len(self.calls)
        self.calls.append(Call(service, model.name, conditional=any(conditions)))
        plan = self._plan
        if plan is None or index != plan.position or service not in INJECTED_SERVICES:
            return None
        self.fired = True
        if plan.fault.timeout is ReadTimeoutError:
            context["faults.read_timeout"] = True  # let it through; the reply is lost in ``_after``
            return None
        if plan.fault.timeout is not None:
            raise plan.fault.timeout(endpoint_url=f"https://{service}.us-east-1.amazonaws.com/")
        return _response(plan.fault, model.name, conditions)

    def _after(self, context: dict[str, Any], **_: Any) -> None:
        if context.pop("faults.read_timeout", False):
            raise ReadTimeoutError(endpoint_url="https://aws.amazon.com/")


def attach_to_core_clients(injector: Injector, monkeypatch: Any) -> None:
    """Each client ``core.platform.aws.client`` builds carries the injector."""
    wrap_core_clients(injector.attach, monkeypatch)
