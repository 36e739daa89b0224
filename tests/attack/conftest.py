"""The attack suite: one local runner (``python -m local``) for the package, attacked from outside over HTTP.

Fixtures only; the helpers (raw HTTP, sign-in through the outbox, forged JWTs) are in ``tests/support/attack.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.attack import Cast, demo, sign_in
from tests.support.runner import LocalService, started_service

ATTACK_MARKER = "attack: the attack suite (forged credentials, cross-tenant reads, injection) over HTTP"


def pytest_configure(config: pytest.Config) -> None:
    # Until pyproject registers it (with --strict-markers an unknown marker is an error).
    config.addinivalue_line("markers", ATTACK_MARKER)


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """One runner for the whole attack suite: every test that changes state makes its own users and workspaces."""
    yield from started_service(tmp_path_factory.mktemp("attack-state"))


@pytest.fixture(scope="session")
def cast(service: LocalService) -> Cast:
    first, second = demo(service)
    return Cast(sign_in(service, first["ownerEmail"]), sign_in(service, "sam@northwind.example"),
                sign_in(service, second["ownerEmail"]))  # fmt: skip
