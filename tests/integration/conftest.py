"""Fixtures of the integration tests: a tenant seeded with the ids events/*.json carry, a rival, the portal, the
frozen rate-limit clock and the chat function's environment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.agents.records import AgentRecord
from core.platform import providers as platform_providers
from core.workspaces.records import WorkspaceRecord
from local.gateway.events import SAMPLE_AGENT_ID, SAMPLE_API_KEY_ID, SAMPLE_KEY, SAMPLE_WORKSPACE_ID
from tests.support.boto_callers import watching
from tests.support.chat import CHAT
from tests.support.lambdas import stack
from tests.support.portal import Portal
from tests.support.seed import Seeder


@dataclass(frozen=True)
class Tenant:
    ws: WorkspaceRecord
    key: str
    agent: AgentRecord


@pytest.fixture(autouse=True)
def only_repositories_call_aws(monkeypatch: pytest.MonkeyPatch) -> Any:
    """docs/architecture.md's rule, held on every AWS call of every integration test (tests/support/boto_callers.py)."""
    with watching(monkeypatch) as check:
        yield
    assert not check.violations, "AWS called from outside core/repositories:\n" + "\n".join(check.violations)


@pytest.fixture
def portal(aws: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Portal:
    """moto with the template's resources, mail written to ``tmp_path/outbox``."""
    monkeypatch.setenv("MAIL_TRANSPORT", "outbox")
    monkeypatch.setenv("OUTBOX_DIR", str(tmp_path / "outbox"))
    platform_providers.reset()
    return Portal(aws, tmp_path / "outbox")


@pytest.fixture
def seed(aws) -> Seeder:
    return Seeder(aws.dynamodb)


@pytest.fixture
def tenant(seed: Seeder) -> Tenant:
    """Workspace, key and agent with exactly the SAMPLE_* ids, so the sample events replay as they are."""
    ws = seed.workspace(seed.user("owner@example.com", plan="pro"), workspace_id=SAMPLE_WORKSPACE_ID)
    key = seed.api_key(ws.id, raw=SAMPLE_KEY, key_id=SAMPLE_API_KEY_ID)
    return Tenant(ws, key, seed.agent(ws, agent_id=SAMPLE_AGENT_ID))


@pytest.fixture
def rival(seed: Seeder) -> Tenant:
    """A second workspace with its own key and agent (for tenant isolation)."""
    ws = seed.workspace(seed.user("rival@example.com", plan="pro"), "Rival")
    return Tenant(ws, seed.api_key(ws.id), seed.agent(ws, slug="rival"))


WINDOW_START = 1_800_000_000.0  # a multiple of 60: the first second of a rate-limit window


class Clock:
    def __init__(self, now: float = WINDOW_START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock of every rate limit (keys' and chat visitors'), frozen at the start of a window; tests move it."""
    from core.platform import rate_limit

    frozen = Clock()
    monkeypatch.setattr(rate_limit, "now", frozen)
    return frozen


@pytest.fixture
def chat_environment(lambda_environment: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat function's own environment from the template, with the offline model as the local runner sets it.

    Autouse in brain/chat/ (its conftest.py); other modules ask for it by name or ``pytest.mark.usefixtures``.
    """
    for name, value in stack().functions()[CHAT].environment.items():
        if name != "AWS_LAMBDA_EXEC_WRAPPER":
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    platform_providers.reset()
