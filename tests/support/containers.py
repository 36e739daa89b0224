"""One handler module per emulated Lambda container, for tests that invoke a function from several threads.

Powertools keeps the current event on the resolver, so one handler module cannot serve
two requests at once (Lambda never asks it to: each container takes one request at a
time). ``Container`` imports its own copy of the handler file, as a fresh container
would, and drains streamed bodies exactly as ``tests.support.lambdas.invoke_streamed``.
"""

from __future__ import annotations

import itertools
from typing import Any

from tests.support.lambdas import LambdaContext, StreamedResult, drain, load_handler_module, stack

_serial = itertools.count()


class Container:
    """A warm container of one function: its own handler module (and resolver)."""

    def __init__(self, logical_id: str):
        self.logical_id = logical_id
        spec = stack().functions()[logical_id]
        module = load_handler_module(logical_id, f"container_{logical_id}_{next(_serial)}")
        self._entry = getattr(module, spec.handler.rsplit(".", 1)[1])

    def invoke_streamed(self, event: dict[str, Any], *, read: int | None = None) -> StreamedResult:
        return drain(self._entry(event, LambdaContext(function_name=self.logical_id)), read=read)
