"""Workflows (authoring.md, "Brands and workflows"): a name and suggestions (any JSON value, at most 64 KiB) that
the read plane serves for the agents running it; never deleted while an agent runs it or it is the default."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import brain
from tests.support.authoring import Studio, fields_named_by_refusals
from tests.support.portal import Portal, assert_error

LIST, CREATE = "PortalWorkflowsListFunction", "PortalWorkflowCreateFunction"
UPDATE, DELETE = "PortalWorkflowUpdateFunction", "PortalWorkflowDeleteFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def listed(studio: Studio) -> list[dict[str, Any]]:
    workflows: list[dict[str, Any]] = studio.ok(LIST)["workflows"]
    return workflows


def test_every_field_and_the_list_oldest_first(studio: Studio) -> None:
    assert listed(studio) == []
    bare = studio.ok(CREATE, 201, body={"name": "Bare"})["workflow"]
    assert bare == {"id": bare["id"], "name": "Bare", "suggestions": None, "createdAt": bare["createdAt"],
                    "updatedAt": bare["createdAt"]}  # fmt: skip
    assert bare["id"].startswith("wf_")
    values: list[Any] = [["Hi?", "Menu?"], {"suggestions": ["a"], "x": 1}, "text", 0, False, {}, []]
    made = [studio.workflow(f"W{n}", suggestions=value) for n, value in enumerate(values)]
    assert [w["suggestions"] for w in made] == values
    assert listed(studio) == [bare, *made]


def test_an_edit_changes_what_it_names(studio: Studio) -> None:
    flow = studio.workflow("Flow", suggestions=["one"])
    renamed = studio.ok(UPDATE, workflow_id=flow["id"], body={"name": "<i>Renamed</i>"})["workflow"]
    assert renamed == flow | {"name": "<i>Renamed</i>", "updatedAt": renamed["updatedAt"]}
    changed = studio.ok(UPDATE, workflow_id=flow["id"], body={"suggestions": {"suggestions": ["two"]}})["workflow"]
    assert changed == renamed | {"suggestions": {"suggestions": ["two"]}, "updatedAt": changed["updatedAt"]}
    assert listed(studio) == [changed]
    assert_error(studio.call(UPDATE, workflow_id="wf_01NOSUCH", body={"name": "X"}), 404, "NOT_FOUND")


def test_the_read_plane_serves_the_active_workflows_suggestions(studio: Studio) -> None:
    key = studio.portal.mint_key(studio.who, studio.workspace_id)["key"]
    flow = studio.workflow("Flow", suggestions=["What's new?"])
    agent = studio.agent("Helper", activeWorkflowId=flow["id"])

    def served() -> Any:
        return brain.ok_json(brain.call("BrainSuggestionsFunction", agent_id=agent["id"], key=key))

    assert served() == {"suggestions": ["What's new?"]}
    studio.ok(UPDATE, workflow_id=flow["id"], body={"suggestions": {"suggestions": ["Any oat milk?", "Hours?"]}})
    assert served() == {"suggestions": ["Any oat milk?", "Hours?"]}
    own = studio.agent("Own")  # its own workflow, with no suggestions yet
    studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body={"activeWorkflowId": own["activeWorkflowId"]})
    assert served() == {"suggestions": []}


def test_a_workflow_in_use_or_the_default_is_not_deleted(studio: Studio) -> None:
    flow, spare, default = studio.workflow("Flow"), studio.workflow("Spare"), studio.workflow("Default")
    agent = studio.agent("Helper", activeWorkflowId=flow["id"])
    studio.ok("PortalWorkspaceUpdateFunction", body={"defaultWorkflowId": default["id"]})
    entries = studio.audit()
    for busy in (flow, default, {"id": agent["activeWorkflowId"]}):
        assert_error(studio.call(DELETE, workflow_id=busy["id"]), 409, "CONFLICT")
    assert studio.audit() == entries
    assert studio.ok(DELETE, workflow_id=spare["id"]) == {}
    assert_error(studio.call(DELETE, workflow_id=spare["id"]), 404, "NOT_FOUND")
    studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body={"activeWorkflowId": default["id"]})
    assert studio.ok(DELETE, workflow_id=flow["id"]) == {}
    studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"])  # its default workflow is no one's now
    studio.ok("PortalWorkspaceUpdateFunction", body={"defaultWorkflowId": studio.workflow("Next")["id"]})
    assert studio.ok(DELETE, workflow_id=default["id"]) == {}
    assert [w["name"] for w in listed(studio)] == ["Next"]


REFUSED: list[tuple[dict[str, Any], str]] = [  # (body, the field the 400 names)
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"name": "a\x85b"}, "name"),
    ({"name": ["x"]}, "name"),
    ({"name": "Ok", "suggestions": ["x" * (64 * 1024)]}, "suggestions"),
    ({"name": "Ok", "agentCount": 1}, "agentCount"),
    ({"name": "Ok", "id": "wf_1"}, "id"),
]


def test_a_bad_workflow_is_refused_naming_the_field(studio: Studio) -> None:
    flow, entries = studio.workflow("Flow"), studio.audit()
    named = fields_named_by_refusals(studio, CREATE, UPDATE, REFUSED, workflow_id=flow["id"])
    assert named == {name: name for name in named}
    assert studio.audit() == entries and listed(studio) == [flow]


def test_the_workflow_of_an_agent_must_be_this_workspaces(studio: Studio) -> None:
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    theirs = rival.workflow("Theirs")
    for wrong in (theirs["id"], "wf_01NOSUCH"):
        refused = studio.call("PortalAgentCreateFunction", body={"name": "A", "activeWorkflowId": wrong})
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith("activeWorkflowId: ")
    agent = studio.agent("A")
    refused = studio.call("PortalAgentUpdateFunction", agent_id=agent["id"], body={"activeWorkflowId": theirs["id"]})
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("activeWorkflowId: ")
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"] == agent
