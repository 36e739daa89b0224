"""Counting the AWS calls of the service's own clients (``core.platform.aws``) and failing the i-th one on purpose.

The hook is botocore's ``before-call`` event: a handler that returns ``(http, parsed)`` stands in
for the wire, so botocore itself turns the error into the exception class a real client raises
(``client.exceptions.ConditionalCheckFailedException``, ``TransactionCanceledException`` with its
``CancellationReasons``, or a plain ``ClientError`` with the code and HTTP status). A fault here is
what the application sees once botocore's own retries are spent. Timeouts are botocore's classes:
a connect timeout before the request was sent, a read timeout *after* moto applied it (the reply
was lost): the hardest case, since the write happened but the caller cannot know.

Every service the layer calls is failed (``INJECTED_SERVICES``; ``tests/faults/test_injection.py`` holds it equal to
the services the layer's code makes clients for): DynamoDB, S3, SQS, SES, Secrets Manager, SSM (the
console's address in mail links) and Bedrock. Bedrock's
``ConverseStream`` is also broken *after* its answer began (``Fault.stream``): the call succeeds and the event
stream it returned fails after some events, as a model error inside the stream or a connection cut.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders
from botocore.exceptions import ConnectTimeoutError, EventStreamError, ReadTimeoutError
from urllib3.exceptions import ProtocolError

from tests.support.core_clients import wrap_core_clients

# By botocore's service name (``ses``, whose endpoint prefix is ``email``).
INJECTED_SERVICES = ("dynamodb", "s3", "sqs", "ses", "secretsmanager", "ssm", "bedrock-runtime")


@dataclass(frozen=True)
class Fault:
    """One kind of failure: an AWS error code with its HTTP status, or a timeout (``code`` None)."""

    name: str
    service: str
    code: str | None = None
    status: int = 400
    timeout: type[ConnectTimeoutError | ReadTimeoutError] | None = None
    conditional: bool = False  # only at conditional writes (elsewhere DynamoDB never answers it)
    # Bedrock's stream broken after ``after_events`` of its events: "exception" (a modelStreamErrorException event,
    # botocore's EventStreamError) or "cut" (the connection lost: urllib3's ProtocolError). The call itself succeeds.
    stream: str | None = None
    after_events: int = 0


THROUGHPUT = Fault("throughput", "dynamodb", "ProvisionedThroughputExceededException", 400)
THROTTLING = Fault("throttling", "dynamodb", "ThrottlingException", 400)
INTERNAL = Fault("internal", "dynamodb", "InternalServerError", 500)
UNAVAILABLE = Fault("unavailable", "dynamodb", "ServiceUnavailable", 503)
CONDITIONAL = Fault("conditional", "dynamodb", conditional=True)  # CCF, or TransactionCanceled[ConditionalCheckFailed]
S3_SLOWDOWN = Fault("slowdown", "s3", "SlowDown", 503)
S3_INTERNAL = Fault("internal", "s3", "InternalError", 500)
S3_UNAVAILABLE = Fault("unavailable", "s3", "ServiceUnavailable", 503)
SQS_THROTTLED = Fault("throttled", "sqs", "RequestThrottled", 403)
SQS_INTERNAL = Fault("internal", "sqs", "InternalError", 500)
SQS_UNAVAILABLE = Fault("unavailable", "sqs", "ServiceUnavailable", 503)
SES_THROTTLING = Fault("throttling", "ses", "Throttling", 400)  # "Maximum sending rate exceeded"
SES_REJECTED = Fault("rejected", "ses", "MessageRejected", 400)  # a sandbox's unverified recipient
SES_UNAVAILABLE = Fault("unavailable", "ses", "ServiceUnavailable", 503)
SECRETS_THROTTLING = Fault("throttling", "secretsmanager", "ThrottlingException", 400)
SECRETS_INTERNAL = Fault("internal", "secretsmanager", "InternalServiceError", 500)
SSM_THROTTLING = Fault("throttling", "ssm", "ThrottlingException", 400)  # the console's address (app_url_store)
SSM_INTERNAL = Fault("internal", "ssm", "InternalServerError", 500)
BEDROCK_THROTTLING = Fault("throttling", "bedrock-runtime", "ThrottlingException", 429)
BEDROCK_UNAVAILABLE = Fault("unavailable", "bedrock-runtime", "ServiceUnavailableException", 503)
BEDROCK_INTERNAL = Fault("internal", "bedrock-runtime", "InternalServerException", 500)
# A ConverseStream answer is messageStart, contentBlockStart, the deltas, ...: broken after the first two events no
# text has reached the visitor; after the third, the first delta has.
BEDROCK_STREAM_ERROR = Fault("stream-error-before-text", "bedrock-runtime", stream="exception", after_events=2)
BEDROCK_STREAM_CUT = Fault("stream-cut-after-text", "bedrock-runtime", stream="cut", after_events=3)


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
    if call.service == "sqs":
        return [SQS_THROTTLED, SQS_INTERNAL if even else SQS_UNAVAILABLE, *_timeouts("sqs")]
    if call.service == "ses":
        return [SES_THROTTLING, SES_REJECTED, SES_UNAVAILABLE, *_timeouts("ses")]
    if call.service == "secretsmanager":
        return [SECRETS_THROTTLING, SECRETS_INTERNAL, *_timeouts("secretsmanager")]
    if call.service == "ssm":
        return [SSM_THROTTLING, SSM_INTERNAL, *_timeouts("ssm")]
    if call.service == "bedrock-runtime":
        busy = [BEDROCK_THROTTLING, BEDROCK_INTERNAL if even else BEDROCK_UNAVAILABLE, *_timeouts("bedrock-runtime")]
        return busy + [BEDROCK_STREAM_ERROR, BEDROCK_STREAM_CUT] * (call.operation == "ConverseStream")
    raise AssertionError(f"no faults for {call.label}: a service the harness does not know (INJECTED_SERVICES)")


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
        service = model.service_model.service_name
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
        if plan.fault.stream is not None:
            context["faults.stream"] = plan.fault  # let it through; its event stream breaks in ``_after``
            return None
        if plan.fault.timeout is not None:
            raise plan.fault.timeout(endpoint_url=f"https://{service}.us-east-1.amazonaws.com/")
        return _response(plan.fault, model.name, conditions)

    def _after(self, context: dict[str, Any], parsed: dict[str, Any], **_: Any) -> None:
        if context.pop("faults.read_timeout", False):
            raise ReadTimeoutError(endpoint_url="https://aws.amazon.com/")
        broken = context.pop("faults.stream", None)
        if broken is not None:
            parsed["stream"] = BrokenStream(parsed["stream"], broken)


class BrokenStream:
    """Bedrock's event stream, failing after ``fault.after_events`` events as a real one fails while it is read."""

    def __init__(self, events: Any, fault: Fault) -> None:
        self._events = events
        self._fault = fault

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index, event in enumerate(self._events):
            if index == self._fault.after_events:
                raise self._error()
            yield event
        raise AssertionError(f"the stream ended before event {self._fault.after_events}, where it was to break")

    def _error(self) -> Exception:
        if self._fault.stream == "exception":
            error = {"Error": {"Code": "modelStreamErrorException", "Message": "injected"}}
            return EventStreamError(error, "ConverseStream")  # type: ignore[arg-type]
        return ProtocolError("Connection broken: injected")

    def close(self) -> None:
        self._events.close()


def attach_to_core_clients(injector: Injector, monkeypatch: Any) -> None:
    """Each client ``core.platform.aws`` builds carries the injector: ``client``'s, and Bedrock's streaming one
    (a factory of its own, for its longer read timeout)."""
    from core.platform import aws

    wrap_core_clients(injector.attach, monkeypatch)
    streaming = aws.bedrock_runtime
    streaming.cache_clear()  # a client made before the injector would escape it

    def bedrock_runtime() -> Any:
        return injector.attach(streaming())  # the same cached client; registering again replaces the hooks

    wrapped: Any = bedrock_runtime
    wrapped.cache_clear = streaming.cache_clear  # platform_providers.reset() still empties the cache
    monkeypatch.setattr(aws, "bedrock_runtime", wrapped)
