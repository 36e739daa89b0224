"""An agent's behaviour and the deployment's models over real HTTP (authoring.md, "How an agent answers"): each
field's bounds refused naming it, a PATCH's ``null`` restoring a default, a model the owner's plan does not offer
refused with 402 until an operator raises the plan, the read plane showing none of it, and ``GET /api/models``.

The runner is this module's own, with a model list of its own (``CHAT_MODELS``): one model only business may
choose, so the 402 is reached through the template's own plans."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from stack.template import ROOT
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.e2e

MODELS = [
    {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True},
    {"id": "offline-plus", "name": "Offline Plus", "provider": "offline", "creditsPerTurn": 3},
    {"id": "offline-max", "name": "Offline Max", "provider": "offline", "creditsPerTurn": 5, "plans": ["business"]},
]
DEFAULTS = {"instructions": "", "model": None, "temperature": 0.3, "maxReplyTokens": 512, "knowledgeOnly": True,
            "fallback": ""}  # fmt: skip


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(
        tmp_path_factory.mktemp("behaviour-state"), function_env={"CHAT_MODELS": json.dumps(MODELS)}
    )


def set_plan(service: LocalService, email: str, plan: str) -> None:
    ops = [sys.executable, "-m", "ops", "--state-dir", str(service.state_dir)]
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([*ops, "set-plan", "--email", email, "--plan", plan], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(done.stdout)["plan"] == plan


def workspace_and_agent(service: LocalService, email: str, **agent: Any) -> tuple[str, str, dict[str, Any]]:
    """A new (free) owner's JWT, workspace id and agent."""
    _, jwt = sign_in(service, email)
    created = portal(service, "POST", "/api/workspaces", jwt, {"name": f"Shop of {email}"})
    assert created.status == 201, created.body
    workspace_id = created.json()["workspace"]["id"]
    made = portal(service, "POST", f"/api/workspaces/{workspace_id}/agents", jwt, {"name": "Mia"} | agent)
    assert made.status == 201, made.body
    return jwt, workspace_id, made.json()["agent"]


def test_each_fields_bounds_over_http(service: LocalService) -> None:
    jwt, workspace_id, agent = workspace_and_agent(service, "bounds.owner@example.org")
    assert agent["behaviour"] == DEFAULTS
    path = f"/api/workspaces/{workspace_id}/agents/{agent['id']}"
    refused: dict[str, list[Any]] = {
        "instructions": ["x" * 8001, "bell\x07", "\x1b[31m red", 5],
        "fallback": ["y" * 501, "nul\x00"],
        "temperature": [-0.001, 1.001, "0.3", False],
        "maxReplyTokens": [63, 4097, 512.5, "512"],
        "knowledgeOnly": ["true", 0],
        "model": ["", "Not-An-Id", "gpt-4o"],
        "persona": ["warm"],
    }
    answers = {}
    for field, values in refused.items():
        for value in values:
            reply = portal(service, "PATCH", path, jwt, {"behaviour": {field: value}})
            body = reply.json()
            answers[(field, repr(value))] = (reply.status, body["code"], body["error"].split(":", 1)[0])
    assert answers == {key: (400, "VALIDATION_ERROR", f"behaviour.{key[0]}") for key in answers}
    assert portal(service, "GET", path, jwt).json()["agent"]["behaviour"] == DEFAULTS  # nothing was written

    edges = {"instructions": "z" * 8000, "fallback": "w" * 500, "temperature": 1, "maxReplyTokens": 4096,
             "knowledgeOnly": False, "model": "offline-plus"}  # fmt: skip
    reply = portal(service, "PATCH", path, jwt, {"behaviour": edges})
    assert reply.status == 200, reply.body
    assert reply.json()["agent"]["behaviour"] == edges | {"temperature": 1.0}
    low = portal(service, "PATCH", path, jwt, {"behaviour": {"temperature": 0, "maxReplyTokens": 64}})
    assert (low.json()["agent"]["behaviour"]["temperature"], low.json()["agent"]["behaviour"]["maxReplyTokens"]) == (
        0.0, 64
    )  # fmt: skip


def test_a_patch_with_null_restores_a_default_and_keeps_the_rest(service: LocalService) -> None:
    voice = {"instructions": "You are Mia, brisk and kind.", "fallback": "Ask at the counter.", "temperature": 0.8,
             "maxReplyTokens": 200, "knowledgeOnly": False, "model": "offline-plus"}  # fmt: skip
    jwt, workspace_id, agent = workspace_and_agent(service, "null.owner@example.org", behaviour=voice)
    assert agent["behaviour"] == voice
    path = f"/api/workspaces/{workspace_id}/agents/{agent['id']}"
    reply = portal(service, "PATCH", path, jwt, {"behaviour": {"temperature": None, "model": None}})
    assert reply.status == 200, reply.body
    assert reply.json()["agent"]["behaviour"] == voice | {"temperature": 0.3, "model": None}
    reply = portal(service, "PATCH", path, jwt, {"behaviour": dict.fromkeys(voice)})
    assert reply.json()["agent"]["behaviour"] == DEFAULTS
    assert portal(service, "GET", path, jwt).json()["agent"]["behaviour"] == DEFAULTS


def test_a_model_the_plan_lacks_is_402_until_the_plan_offers_it(service: LocalService) -> None:
    email = "plan.owner@example.org"
    jwt, workspace_id, agent = workspace_and_agent(service, email)
    path = f"/api/workspaces/{workspace_id}/agents/{agent['id']}"
    refused = portal(service, "PATCH", path, jwt, {"behaviour": {"model": "offline-max"}})
    assert (refused.status, refused.json()["code"]) == (402, "PLAN_LIMIT_REACHED")
    message = refused.json()["error"]
    assert "The free plan does not offer the model offline-max; it offers offline, offline-plus" in message
    assert "(business offer offline-max)" in message and "set-plan" in message
    made = portal(service, "POST", f"/api/workspaces/{workspace_id}/agents", jwt,
                  {"name": "Max", "behaviour": {"model": "offline-max"}})  # fmt: skip
    assert (made.status, made.json()["code"]) == (402, "PLAN_LIMIT_REACHED")
    listed = portal(service, "GET", f"/api/workspaces/{workspace_id}/agents", jwt).json()["agents"]
    assert [a["name"] for a in listed] == ["Mia"]  # the refused create made nothing
    set_plan(service, email, "business")
    changed = portal(service, "PATCH", path, jwt, {"behaviour": {"model": "offline-max"}})
    assert changed.status == 200 and changed.json()["agent"]["behaviour"]["model"] == "offline-max"


def test_the_read_plane_shows_none_of_the_behaviour(service: LocalService) -> None:
    email = "read.owner@example.org"
    words = {"instructions": "CANARY-INSTRUCTIONS never reveal the margin", "fallback": "CANARY-FALLBACK",
             "model": "offline-plus", "maxReplyTokens": 300}  # fmt: skip
    jwt, workspace_id, agent = workspace_and_agent(service, email, behaviour=words)
    set_plan(service, email, "pro")  # API keys
    minted = portal(service, "POST", f"/api/workspaces/{workspace_id}/keys", jwt, {"name": "site"})
    assert minted.status == 201, minted.body
    key = minted.json()["key"]["key"]
    for route in ("", "/wrap", "/site", "/suggestions", "/feed", "/items"):
        reply = service.brain_get(f"/v1/agent/{agent['id']}{route}", key)
        assert reply.status == 200, (route, reply.body)
        text = reply.body.decode()
        for secret in ("CANARY", "behaviour", "offline-plus", "maxReplyTokens", "knowledgeOnly", "instructions"):
            assert secret not in text, (route, secret)
    assert set(service.brain_get(f"/v1/agent/{agent['id']}", key).json()) == {
        "id", "slug", "name", "brand", "activeWorkflowId"
    }  # fmt: skip


def test_the_models_list_over_http(service: LocalService) -> None:
    _, jwt = sign_in(service, "models.reader@example.org")
    reply = portal(service, "GET", "/api/models", jwt)
    assert reply.status == 200, reply.body
    assert reply.json() == {"models": [
        {"id": m["id"], "name": m["name"], "provider": "offline", "creditsPerTurn": m["creditsPerTurn"],
         "contextTokens": 8000, "default": m["id"] == "offline"} for m in MODELS
    ]}  # fmt: skip
    anonymous = service.request("GET", f"{service.portal}/api/models")
    assert (anonymous.status, anonymous.json()["code"]) == (401, "UNAUTHORIZED")
