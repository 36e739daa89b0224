"""GET /v1/agent/{agentId}: metadata of an agent of the key's workspace; anything else is the same 404."""

from __future__ import annotations

import pytest

from local.gateway.events import SAMPLE_AGENT_ID
from tests.support.brain import AGENT_NOT_FOUND, BRAIN_FUNCTIONS, call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event
from tests.support.seed import Seeder

AGENT = "BrainAgentFunction"


def test_sample_event_returns_the_agent_metadata(tenant) -> None:
    body = ok_json(invoke(AGENT, sample_event(AGENT)))
    assert body == {
        "id": SAMPLE_AGENT_ID,
        "slug": "helper",
        "name": "Helper",
        "brand": {"id": tenant.ws.default_brand_id, "slug": "acme", "name": "Acme"},
        "activeWorkflowId": tenant.agent.active_workflow_id,
    }
    assert isinstance(body["activeWorkflowId"], str) and body["activeWorkflowId"]


def test_each_agent_of_the_workspace_has_its_own_metadata(tenant, seed: Seeder) -> None:
    second = seed.agent(tenant.ws, slug="concierge")
    body = ok_json(call(AGENT, agent_id=second.id))
    assert (body["id"], body["slug"], body["name"]) == (second.id, "concierge", "Concierge")
    assert body["activeWorkflowId"] == second.active_workflow_id != tenant.agent.active_workflow_id


def test_unknown_id_is_404(tenant) -> None:
    assert error_of(call(AGENT, agent_id="prj_01JD0UNKNOWN0AGENT00000000")) == (404, AGENT_NOT_FOUND)


def test_slug_is_not_accepted_as_an_id(tenant) -> None:
    assert error_of(call(AGENT, agent_id=tenant.agent.slug)) == (404, AGENT_NOT_FOUND)


def test_workspace_id_is_not_an_agent(tenant) -> None:
    assert error_of(call(AGENT, agent_id=tenant.ws.id)) == (404, AGENT_NOT_FOUND)


@pytest.mark.parametrize("function", BRAIN_FUNCTIONS)
def test_another_workspaces_agent_is_indistinguishable_from_an_unknown_one(tenant, rival, function: str) -> None:
    foreign = call(function, agent_id=rival.agent.id)
    unknown = call(function, agent_id="prj_01JD0UNKNOWN0AGENT00000000")
    assert error_of(foreign) == error_of(unknown) == (404, AGENT_NOT_FOUND)
    assert foreign.body == unknown.body
    # ... while the rival's own key does see it.
    assert call(function, agent_id=rival.agent.id, key=rival.key).status == 200
