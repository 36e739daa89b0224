"""Buffered containers forked from the runner's warmed process (local/containers/fork_server.py) are containers of
their own, as new interpreters were: each has its environment, its module state and its handler; only the
libraries were loaded before the fork, never the layer's or a function's code; one that ends is seen to end."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from local.containers.buffered import Container
from local.containers.fork_server import ForkServer
from stack.template import ROOT
from tests.support.lambdas import functions

HANDLER = """
import os, sys
LOADED_BEFORE = {m: m in sys.modules for m in ("boto3", "pydantic", "aws_lambda_powertools.logging", "core")}
CALLS = 0

def lambda_handler(event, context):
    global CALLS
    CALLS += 1
    return {"pid": os.getpid(), "calls": CALLS, "who": os.environ.get("WHO"), "cwd": os.getcwd(),
            "loaded_before": LOADED_BEFORE, "function": context.function_name, "path0": sys.path[0]}
"""


@pytest.fixture
def server() -> Iterator[ForkServer]:
    forks = ForkServer(sys.executable, {"PATH": "/usr/bin:/bin"}, str(ROOT))
    yield forks
    forks.close()


def test_each_forked_container_has_its_own_environment_state_and_handler(server: ForkServer, tmp_path: Path) -> None:
    (tmp_path / "handler.py").write_text(HANDLER)
    spec = replace(functions()["PortalAccountFunction"], code_uri=tmp_path, handler="handler.lambda_handler")
    first = Container(spec, [], {"WHO": "first"}, fork_server=lambda: server)
    second = Container(replace(spec, logical_id="Other"), [], {"WHO": "second"}, fork_server=lambda: server)
    try:
        one, again, two = first.invoke({}), first.invoke({}), second.invoke({})
        assert (one["calls"], again["calls"], two["calls"]) == (1, 2, 1)  # module state is the container's
        assert one["pid"] == again["pid"] != two["pid"]
        assert (one["who"], two["who"]) == ("first", "second")
        assert (one["function"], two["function"]) == ("PortalAccountFunction", "Other")
        assert one["cwd"] == str(ROOT) and one["path0"] == str(tmp_path)
        # The libraries came with the fork; the layer's code did not (each container imports its own).
        assert one["loaded_before"] == {"boto3": True, "pydantic": True, "aws_lambda_powertools.logging": True,
                                        "core": False}  # fmt: skip
    finally:
        first.close()
        second.close()


def test_a_container_that_is_stopped_is_seen_as_gone(server: ForkServer, tmp_path: Path) -> None:
    (tmp_path / "handler.py").write_text(HANDLER)
    spec = replace(functions()["PortalAccountFunction"], code_uri=tmp_path, handler="handler.lambda_handler")
    container = Container(spec, [], {}, fork_server=lambda: server)
    assert container.alive
    container.close()
    assert not container.alive
    assert container.process.poll() is not None
