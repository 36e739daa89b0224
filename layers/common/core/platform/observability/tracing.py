"""X-Ray through Powertools' Tracer, created only when tracing is on: importing it (and aws-xray-sdk) costs
a cold start about 10 ms (bench/cold_observability.py), so a function without X-Ray never pays it."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from typing import Any

_tracer: Any = None


def tracing_enabled() -> bool:
    """X-Ray is on: the function runs with ``Tracing: Active`` (Lambda sets the daemon address) and
    POWERTOOLS_TRACE_DISABLED is not set. Locally and in tests neither holds, so Tracer is never imported."""
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "").lower() in ("1", "true", "yes")
    return bool(os.environ.get("AWS_XRAY_DAEMON_ADDRESS")) and not disabled


def tracer(service: str) -> Any:
    """Powertools' Tracer, created on first use (it patches botocore: DynamoDB and S3 calls become subsegments)."""
    global _tracer  # noqa: PLW0603 - one per container, created on its first traced invocation
    if _tracer is None:
        from aws_lambda_powertools import Tracer

        _tracer = Tracer(service=service, patch_modules=["botocore"])
    return _tracer


def traced(service: str) -> AbstractContextManager[Any]:
    """The invocation as a ``## <service>`` subsegment (creating the Tracer on first use), when tracing is on."""
    if not tracing_enabled():
        return nullcontext()
    segment: AbstractContextManager[Any] = tracer(service).provider.in_subsegment(f"## {service}")
    return segment


def subsegment(name: str) -> AbstractContextManager[Any]:
    """A subsegment around a call (e.g. the model's), or nothing when X-Ray is off."""
    if _tracer is None or not tracing_enabled():
        return nullcontext()
    segment: AbstractContextManager[Any] = _tracer.provider.in_subsegment(name)
    return segment
