"""Schemathesis hooks for the fuzz runs (loaded with ``SCHEMATHESIS_HOOKS=tests.support.fuzz_hooks``).

Schemathesis validates JSON bodies against the document by itself, but has no deserializer
for the chat's ``application/x-ndjson`` stream. This check validates every line of it
against the document's event schema instead of one whole body.

With ``FUZZ_CALL_LOG`` set, every call's phase, operation and status is appended to that file (one JSON line
each): what a run reached, e.g. which operations the stateful phase got a 2xx from with the ids of a chain.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import jsonschema_rs
import schemathesis

NDJSON = "application/x-ndjson"
CALL_LOG = os.environ.get("FUZZ_CALL_LOG")
_written = threading.Lock()  # the run's workers are threads


@schemathesis.hook
def after_call(context: Any, case: schemathesis.Case, response: schemathesis.Response) -> None:
    if CALL_LOG and case.meta is not None:
        line = {"phase": case.meta.phase.name.value, "operation": case.operation.label, "status": response.status_code}
        with _written, open(CALL_LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


def _event_schema(case: schemathesis.Case, status: int) -> dict[str, Any] | None:
    """The documented schema of one line, with the document's components so ``$ref`` resolves."""
    document = case.operation.schema.raw_schema
    operation = document["paths"][case.operation.path][case.operation.method.lower()]
    content = operation.get("responses", {}).get(str(status), {}).get("content", {})
    schema = content.get(NDJSON, {}).get("schema")
    if schema is None:
        return None
    return schema | {"components": document.get("components", {})}


@schemathesis.check
def ndjson_events_conform(ctx: schemathesis.CheckContext, response: schemathesis.Response, case: Any) -> None:
    """Each line of a streamed chat reply is one documented event; the stream ends with ``done`` or ``error``."""
    if not response.headers.get("content-type", [""])[0].startswith(NDJSON):
        return
    schema = _event_schema(case, response.status_code)
    if schema is None:
        raise AssertionError(f"{response.status_code} {NDJSON} is not documented for {case.operation.label}")
    validator = jsonschema_rs.validator_for(schema)
    lines = [line for line in response.content.decode().split("\n") if line.strip()]
    assert lines, "an NDJSON reply with no event"
    for number, line in enumerate(lines, 1):
        event = json.loads(line)
        errors = [error.message for error in validator.iter_errors(event)]
        assert not errors, f"line {number} ({event.get('type')!r}) does not match the document: {errors[:3]}"
    assert json.loads(lines[-1]).get("type") in ("done", "error"), "the stream did not end with done or error"
