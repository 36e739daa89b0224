"""The e2e suite's runner: one ``python -m local`` for the session (helpers: tests/support/runner.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.runner import LocalService, started_service


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """One runner for the session: tests that change what others read start their own (``started_service``)."""
    yield from started_service(tmp_path_factory.mktemp("local-state"))
