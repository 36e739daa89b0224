"""One handler module per emulated Lambda container, for tests that invoke a function from several threads.

Powertools keeps the current event on the resolver, so one handler module cannot serve
two requests at once (Lambda never asks it to: each container takes one request at a
time). ``Container`` imports its own copy of the handler file, as a fresh container
would, and drains streamed bodies exactly as ``tests.support.lambdas.invoke_streamed``.
"""

from __future__ import annotations

import importlib.util
import itertools
from types import ModuleType
from typing import Any

from core.streaming import StreamBody, body_chunks
from tests.support.lambdas import LambdaContext, StreamedResult, stack

_serial = itertools.count()


def fresh_handler_module(logical_id: str) -> ModuleType:
    spec = stack().functions()[logical_id]
    module_name, _ = spec.handler.rsplit(".", 1)
    path = spec.code_uri / f"{module_name.replace('.', '/')}.py"
    loader = importlib.util.spec_from_file_location(f"container_{logical_id}_{next(_serial)}", path)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


class Container:
    """A warm container of one function: its own handler module (and resolver)."""

    def __init__(self, logical_id: str):
        self.logical_id = logical_id
        spec = stack().functions()[logical_id]
        self._entry = getattr(fresh_handler_module(logical_id), spec.handler.rsplit(".", 1)[1])

    def invoke_streamed(self, event: dict[str, Any], *, read: int | None = None) -> StreamedResult:
        raw = self._entry(event, LambdaContext(function_name=self.logical_id))
        chunks: list[bytes] = []
        try:
            for chunk in body_chunks(raw):
                chunks.append(chunk)
                if read is not None and len(chunks) >= read:
                    break
        finally:
            if isinstance(raw.get("body"), StreamBody):
                raw["body"].close()
        headers = dict(raw.get("headers") or {})
        for name, values in (raw.get("multiValueHeaders") or {}).items():
            headers[name] = ", ".join(values)
        return StreamedResult(status=raw["statusCode"], headers=headers, chunks=chunks)
