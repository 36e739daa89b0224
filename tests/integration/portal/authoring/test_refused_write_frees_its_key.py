"""A write storage refused with a 4xx (throttled, a request S3 timed out) is known not to have happened, so the claim
on its ``Idempotency-Key`` is dropped at once (``services/idempotency.py``): the client's retry with the same key
runs the write, instead of meeting 409 until the claim's 60-second lock lapses. Every writer function, each with
the first AWS call after its claim refused.

This is also what holds each writer's ``dynamodb:DeleteItem`` (PortalWriterPolicy: dropping the claim) to a test:
tests/support/iam_check.py judges the call against the function's own policy.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.portal.authoring.test_idempotency_and_audit import WRITES, prepared, remember, request_of
from tests.support.authoring import Studio
from tests.support.fault_injection import THROTTLING, Fault, Injector, Plan, attach_to_core_clients
from tests.support.portal import Portal, assert_error

# S3's own 4xx for a request it never applied (the client sent its body too slowly).
S3_REQUEST_TIMEOUT = Fault("request-timeout", "s3", "RequestTimeout", 400)


class RefuseAfterClaim(Injector):
    """Refuses the first DynamoDB or S3 call made after the Idempotency-Key's claim (an UpdateItem on
    ``IDEMPOTENCY#``), with a 4xx of that service."""

    claimed = False  # the last call seen was the claim

    def _before(self, model: Any, params: dict[str, Any], context: dict[str, Any], **kwargs: Any) -> Any:
        if self._armed and self._plan is None and self.claimed:
            refusal = S3_REQUEST_TIMEOUT if model.service_model.endpoint_prefix == "s3" else THROTTLING
            self._plan = Plan(len(self.calls), refusal)
        self.claimed = model.name == "UpdateItem" and b'"IDEMPOTENCY#' in (params.get("body") or b"")
        return super()._before(model, params, context, **kwargs)


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def test_every_write_refused_by_storage_after_its_claim_runs_when_retried_with_the_same_key(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = prepared(studio)
    injector = RefuseAfterClaim()
    attach_to_core_clients(injector, monkeypatch)
    for n, write in enumerate(WRITES):
        request = request_of(write, state)
        entries = studio.audit(50)
        with injector.armed() as calls:
            refused = studio.call(write.function, key=f"key-{n}", **request)
        assert injector.fired, (write.function, [c.label for c in calls])
        assert_error(refused, 500, "INTERNAL_ERROR")
        assert studio.audit(50) == entries, write.function  # nothing was written...
        answer = studio.call(write.function, key=f"key-{n}", **request)  # ...so the same key writes now
        assert answer.status in (200, 201, 202), (write.function, answer.body)  # 202: a webhook's test and retry
        assert len(studio.audit(50)) == len(entries) + 1, write.function
        remember(state, write, answer.json())
