"""The streaming probe (``tests/support/streaming_probe``) in emulated containers, as the streaming tests use it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from local.containers.pool import ContainerPool
from local.gateway.routing import Match, proxy_event
from stack.template import ROOT, Route, Stack, load
from tests.conftest import FAKE_AWS

TEMPLATE = ROOT / "tests" / "support" / "streaming-template.yaml"
PROBE = "ProbeFunction"


def probe_stack() -> Stack:
    return Stack(load(TEMPLATE))


@contextmanager
def probe_pool(**changes: Any) -> Iterator[ContainerPool]:
    """A container pool for the probe; ``changes`` alter its FunctionSpec (``timeout=1``, ``handler=...``)."""
    stack = probe_stack()
    functions = {name: dataclasses.replace(spec, **changes) for name, spec in stack.functions().items()}
    pool = ContainerPool(functions, [str(p) for p in stack.layer_dirs()], dict(FAKE_AWS))
    try:
        yield pool
    finally:
        pool.close()


def probe_event(target: str) -> dict[str, Any]:
    """The proxy event API Gateway sends the probe for ``GET target``."""
    proxy = target.split("?", 1)[0].lstrip("/")
    found = Match(Route("ProbeApi", "/{proxy+}", "ANY", PROBE), {"proxy": proxy})
    return proxy_event("GET", target, [("Host", "localhost")], b"", found, stage="live", source_ip="127.0.0.1")


def marker_text(path: Path, timeout: float = 10) -> str | None:
    """What the probe's generator wrote to ``path`` in its ``finally``, once it has (None if it never did)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and (text := path.read_text()):
            return text
        time.sleep(0.02)
    return None
