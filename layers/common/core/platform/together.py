"""Independent reads issued at once, so a request waits for the slowest of them rather than their sum.

``run(*calls)`` starts every call on a small pool shared by the container (boto3 clients are
thread-safe) and returns their futures once all have finished; the caller takes the results
in the order its answers must be decided (``future.result()`` re-raises the call's error), so
an unknown agent is still a 404 however the other reads went. Each call runs in a copy of the
caller's context, so context variables (logging, tracing) carry over.

``checked_then_read`` is the writer's shape of it: an access check and the record a write starts from.

``in_order`` runs the same calls one after another: the fault suite uses it to number the AWS
calls of an operation deterministically (tests/support/fault_harness.py); both answer the same.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

MAX_THREADS = 8  # more than any request issues together; idle threads cost nothing between invocations
_POOL = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="together")  # threads start on first use


def concurrently(*calls: Callable[[], Any]) -> list[Future[Any]]:
    """Every call started at once; returns when all have finished (their futures, in argument order). A lone
    call runs here: nothing to overlap it with."""
    if len(calls) == 1:
        return in_order(*calls)
    futures = [_POOL.submit(contextvars.copy_context().run, call) for call in calls]
    wait(futures)
    return futures


def in_order(*calls: Callable[[], Any]) -> list[Future[Any]]:
    """The same calls one after another, with the same answer as ``concurrently``."""
    futures: list[Future[Any]] = []
    for call in calls:
        future: Future[Any] = Future()
        try:
            future.set_result(call())
        except Exception as exc:  # kept for the caller's ``result()``, as the pool would
            future.set_exception(exc)
        futures.append(future)
    return futures


run: Callable[..., list[Future[Any]]] = concurrently


def checked_then_read[A, T](check: Callable[[], A], read: Callable[[], T]) -> tuple[A, Callable[[], T]]:
    """``check()`` (a tenant check) and ``read()`` issued together; the read's answer is used only once the check
    has passed, so an unknown workspace is still a 404 however the read went. Returns the check's result and a
    reader that answers that first read, then reads again on each later call (a write's attempt after a lost race).
    """
    checked, first = run(check, read)
    result: A = checked.result()
    kept = [first]
    return result, lambda: kept.pop().result() if kept else read()
