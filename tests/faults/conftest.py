"""Fixtures of the fault suite: one moto per test module, the injector, params.

Each test puts back in the module's moto the template's resources as they were made, and each case its
scenario's arrangement as it was first made (``tests/support/fault_harness.py``): a test never sees another's
writes, and a scenario's state is arranged once per module.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Aws
from tests.support.fault_harness import SHARED_PROBES, Arrangements, World, cases, lambda_moto, probe_all
from tests.support.moto_state import taken


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "faults: injected AWS failures at every call of an operation, in every service")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``case``: every call position and fault kind of each of the module's ``SCENARIOS``, probed cleanly first;
    ``scenario``: each scenario, for its clean baseline."""
    scenarios = getattr(metafunc.module, "SCENARIOS", [])
    if {"case", "scenario"} & set(metafunc.fixturenames):
        if os.environ.get("PYTEST_XDIST_WORKER") and not SHARED_PROBES:
            # The run's workers share their probes in the run's base temporary directory (each worker's is below).
            shared = metafunc.config._tmp_path_factory.getbasetemp().parent / "fault-probes"  # type: ignore[attr-defined]
            shared.mkdir(exist_ok=True)
            SHARED_PROBES[:] = [shared]
        probe_all(scenarios)
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", [param for scenario in scenarios for param in cases(scenario)])
    if "scenario" in metafunc.fixturenames:
        metafunc.parametrize("scenario", scenarios, ids=[s.name for s in scenarios])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith("tests/faults/"):
            item.add_marker(pytest.mark.faults)


@pytest.fixture(scope="module")
def shared_aws() -> Iterator[tuple[Aws, Arrangements]]:
    with lambda_moto() as (_, clients):
        yield clients, Arrangements(taken())


@pytest.fixture
def world(
    shared_aws: tuple[Aws, Arrangements], lambda_environment: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> World:
    clients, arrangements = shared_aws
    return World(clients, monkeypatch, tmp_path, arrangements)
