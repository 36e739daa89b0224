"""Fixtures of the fault suite: one moto per test module (cases keep apart by fresh ids), the injector, params.

A moto per test would cost more than most cases; each case arranges its own workspace, user
or account with new ids, so a shared moto is as good as a fresh one and the suite stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Aws
from tests.support.fault_harness import World, cases, lambda_moto


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "faults: injected DynamoDB/S3 failures at every AWS call of an operation")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``case``: every call position and fault kind of each of the module's ``SCENARIOS``, probed cleanly first;
    ``scenario``: each scenario, for its clean baseline."""
    scenarios = getattr(metafunc.module, "SCENARIOS", [])
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", [param for scenario in scenarios for param in cases(scenario)])
    if "scenario" in metafunc.fixturenames:
        metafunc.parametrize("scenario", scenarios, ids=[s.name for s in scenarios])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith("tests/faults/"):
            item.add_marker(pytest.mark.faults)


@pytest.fixture(scope="module")
def shared_aws() -> Iterator[Aws]:
    with lambda_moto() as (_, clients):
        yield clients


@pytest.fixture
def world(shared_aws: Aws, lambda_environment: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> World:
    return World(shared_aws, monkeypatch, tmp_path)
