"""Logs, metrics and traces through Powertools, behind the few calls the rest of the layer makes.

- ``invocation(plane, handler, event, context)`` frames one invocation (the HTTP factory's resolver,
  ``core.platform.lambda_runtime.loop`` through it, and the workers' ``observed`` decorator): Powertools'
  ``inject_lambda_context`` (cold start, function, request id, the API Gateway request id as ``correlation_id``),
  then one ``request done`` line with status and latency, then one flush of the invocation's metrics. A streamed
  body is finished when it closes, so the line and the flush come after the stream.
- ``count`` / ``add`` record a fact where it is known (services); ``identify`` names the caller.
- ``subsegment`` traces a call (the model's) when X-Ray is on; Tracer is imported only then.

Metrics are EMF: one document per dimension set (``core.platform.observability.catalogue`` bounds every dimension).
Nothing here may fail a request: a broken emitter is a warning line, never an error answer.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

from core.platform.observability.catalogue import bounded_dimensions, unit_of
from core.platform.observability.tracing import subsegment, traced, tracing_enabled
from core.platform.response_stream import StreamBody

__all__ = [
    "count",
    "counted",
    "flush",
    "identify",
    "invocation",
    "logger_for",
    "observed",
    "subsegment",
    "tracing_enabled",
]

DEFAULT_NAMESPACE = "WorkspaceService"
_log = logging.getLogger(__name__)
_loggers: dict[str, Logger] = {}
_values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = defaultdict(float)
_CONTEXT_FIELDS = ("function_name", "memory_limit_in_mb", "invoked_function_arn", "aws_request_id")
Handler = Callable[[Any, Any], Any]


def service_name(plane: str) -> str:
    """One service per plane (``brain``, ``portal``, ``workers``), under the stack's POWERTOOLS_SERVICE_NAME."""
    return f"{os.environ.get('POWERTOOLS_SERVICE_NAME', 'workspace-service')}-{plane}"


def logger_for(plane: str, routed: tuple[str, ...] = ()) -> Logger:
    """The plane's Powertools Logger. In a Lambda sandbox the layer's ``core.*`` loggers (and ``routed``
    ones) write through it, so every line has one JSON shape and the invocation's keys."""
    service = service_name(plane)
    if (found := _loggers.get(service)) is None:
        found = _loggers[service] = Logger(service=service)
        if os.environ.get("AWS_EXECUTION_ENV") or not logging.getLogger().handlers:
            # On Lambda, and in the local runner's containers where nothing else formats them. Not in a test
            # process: its root handlers (pytest's capture, the log scan) must keep seeing those records.
            copy_config_to_registered_loggers(source_logger=found, include={"core", *routed})
    return found


def count(metric: str, value: float = 1, **dimensions: str) -> None:
    """Add ``value`` to ``metric`` for this invocation (flushed once, at its end)."""
    try:
        _values[(metric, bounded_dimensions(metric, dimensions))] += value
    except Exception:  # an unknown metric is a bug to see in the logs, not a reason to fail the request
        _log.warning("metric not recorded", extra={"metric": metric}, exc_info=True)


def identify(**ids: str) -> None:
    """The caller's ids on every later line of this invocation (workspace, key id or user id; never a secret)."""
    for logger in _loggers.values():
        logger.append_keys(**ids)


def flush(plane: str) -> None:
    """Print this invocation's metrics as EMF lines (Powertools' serializer): one document per dimension set."""
    from aws_lambda_powertools.metrics import Metrics, MetricUnit, single_metric

    values = dict(_values)
    _values.clear()
    namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE", DEFAULT_NAMESPACE)
    service = service_name(plane)
    try:
        plain = {name: value for (name, dims), value in values.items() if not dims}
        if plain:
            metrics = Metrics(namespace=namespace, service=service)
            for name, value in plain.items():
                metrics.add_metric(name=name, unit=unit_of(name), value=value)
            metrics.flush_metrics()
        for (name, dims), value in values.items():
            if dims:
                dimensions = {"service": service, **dict(dims)}
                unit = MetricUnit(unit_of(name))  # the catalogue's units are MetricUnit's values
                with single_metric(name, unit, value, namespace=namespace, default_dimensions=dimensions):
                    pass
    except Exception:
        _log.warning("metrics were not emitted", exc_info=True)
    finally:
        sys.stdout.flush()  # Powertools prints EMF: out before the sandbox freezes (or a local container is reaped)


class _ObservedBody(StreamBody):
    """A streamed body that finishes its invocation (line, metrics) once the runtime closes it."""

    def __init__(self, body: StreamBody, finish: Callable[[], None]):
        super().__init__(body)
        self._body, self._finish = body, finish

    def close(self) -> None:
        try:
            self._body.close()  # first: a generator's ``finally`` records usage (credits, bytes)
        finally:
            finish, self._finish = self._finish, lambda: None
            finish()


def invocation(
    plane: str, handler: Callable[[Any, Any], Any], event: Any, context: Any, routed: tuple[str, ...] = ()
) -> Any:
    """Run ``handler`` as one observed invocation (see the module's docstring)."""
    logger = logger_for(plane, routed)
    started = time.perf_counter()
    _values.clear()

    def finish(result: Any) -> None:
        status = result.get("statusCode") if isinstance(result, dict) else None
        resource = event.get("resource") if isinstance(event, dict) else None
        extra = {"status": status, "latency_ms": round((time.perf_counter() - started) * 1000, 1)}
        if resource:  # the route's pattern, never the path: a path may carry a token
            extra |= {"method": event.get("httpMethod"), "resource": resource}
        logger.info("request done" if status is not None else "invocation done", extra=extra)
        if status is not None:
            count("Requests")
        flush(plane)

    def observed(event: Any, context: Any) -> Any:
        with traced(service_name(plane)):
            try:
                result = handler(event, context)
            except BaseException:
                finish({"statusCode": 500} if isinstance(event, dict) and "httpMethod" in event else None)
                raise
        body = result.get("body") if isinstance(result, dict) else None
        if isinstance(body, StreamBody):
            result["body"] = _ObservedBody(body, lambda: finish(result))
        else:
            finish(result)
        return result

    if not all(hasattr(context, name) for name in _CONTEXT_FIELDS):  # a bare test context: no Lambda keys
        return observed(event, context)
    inject = logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
    return inject(observed)(event, context)


def observed(plane: str, *, routed: tuple[str, ...] = ()) -> Callable[[Handler], Handler]:
    """``@observed("workers", routed=("purge",))`` on a non-HTTP ``lambda_handler``: the HTTP factory's framing;
    ``routed`` names the handler's own stdlib loggers, written through the plane's Logger on Lambda."""

    def decorate(handler: Handler) -> Handler:
        def lambda_handler(event: Any, context: Any) -> Any:
            return invocation(plane, handler, event, context, routed)

        return lambda_handler

    return decorate


class counted:  # lower case: used like a function, ``counted("R2BytesStreamed", chunks)``
    """``chunks``, adding their size to ``metric`` once the stream ends, however it ends: read to the end, or
    closed early (a reader gone, even before the first chunk). Closing also closes the source (an S3 body)."""

    def __init__(self, metric: str, chunks: Iterable[bytes]):
        self._metric, self._chunks, self._sent, self._closed = metric, chunks, 0, False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            self._sent += len(chunk)
            yield chunk
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if (close := getattr(self._chunks, "close", None)) is not None:
                close()
        finally:
            count(self._metric, self._sent)
