"""Fixtures of the read-plane (brain) integration tests: the chat function's environment and a funded tenant.

They live here, not in chat/, because the sliding-limit tests beside this file use them too.
"""

from __future__ import annotations

from functools import cache

import pytest

from core import deps
from core.repositories.workspaces import WorkspaceRepository
from core.settings import get_settings
from tests.integration.conftest import Tenant
from tests.support.chat import CHAT, ITEM, RecordingModel, grant
from tests.support.lambdas import stack
from tests.support.seed import Seeder


@pytest.fixture
def chat_environment(lambda_environment: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat function's own environment from the template, with the offline model as the local runner sets it.

    Autouse in chat/ (chat/conftest.py); other modules ask for it with ``pytest.mark.usefixtures``.
    """
    for name, value in stack().functions()[CHAT].environment.items():
        if name != "AWS_LAMBDA_EXEC_WRAPPER":
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    deps.reset()


@pytest.fixture
def funded(tenant: Tenant, seed: Seeder, aws) -> Tenant:
    """The tenant, its owner holding 10 credits, and its agent with published items to talk about."""
    grant(aws, tenant.ws.owner_id, 10)
    seed.items(
        tenant.agent.id,
        [
            {"name": ITEM, "kind": "document", "folder": "catalogue"},
            {"name": "Linen summer shirt", "kind": "image", "folder": "catalogue"},
            {"name": "Gift card terms", "kind": "document", "folder": "service"},
        ],
    )
    return tenant


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> RecordingModel:
    recorder = RecordingModel()
    monkeypatch.setattr(deps, "chat_model", cache(lambda: recorder))
    deps.reset()
    return recorder


@pytest.fixture
def storing(funded: Tenant, aws) -> Tenant:
    """The funded tenant, its workspace storing conversations."""
    WorkspaceRepository(aws.dynamodb, get_settings().main_table).put_workspace(
        funded.ws.model_copy(update={"store_conversations": True})
    )
    return funded
