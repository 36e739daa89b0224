"""Load tests: many concurrent clients against the local runner, a real process over loopback HTTP.

Each module starts a runner of its own (its cases change balances, plans and workspaces
that other tests read, and the sign-in throttle counts per source address). Every loop
is bounded in count and in time; concurrency stays at 16 or fewer clients.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.runner import LocalService, started_service


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "load: concurrent clients over loopback HTTP against the local runner")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """One runner per module, with the demo data."""
    yield from started_service(tmp_path_factory.mktemp("load-state"))
