"""Fixtures of the read-plane (brain) integration tests: a funded tenant, a recording model, a storing workspace.

They live here, not in chat/, because the sliding-limit tests beside this file use them too (the chat function's
environment, ``chat_environment``, is in ../conftest.py: the metrics tests in shared/ use it as well).
"""

from __future__ import annotations

from functools import cache

import pytest

from core.chat import providers as chat_providers
from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from core.workspaces.store import WorkspaceStore
from tests.integration.conftest import Tenant
from tests.support.chat import ITEM, RecordingModel, grant
from tests.support.seed import Seeder


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
    monkeypatch.setattr(chat_providers, "model", cache(recorder.for_spec))
    platform_providers.reset()
    return recorder


@pytest.fixture
def storing(funded: Tenant, aws) -> Tenant:
    """The funded tenant, its workspace storing conversations."""
    WorkspaceStore(aws.dynamodb, get_settings().main_table).put_workspace(
        funded.ws.model_copy(update={"store_conversations": True})
    )
    return funded
