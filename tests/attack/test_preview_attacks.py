"""An owner's preview and knowledge search attacked over HTTP (authoring.md, "Trying an agent before visitors do").

- Cross-tenant agent ids: B's owner naming A's agent, in A's workspace or in B's own, gets the 404 an unknown agent
  gets, byte for byte, for the search and for the preview (also with a behaviour override whose plan check would
  tell more), and A's owner is charged nothing.
- Rate limits: previews are 20 a minute per user, counted whatever the answer (a flood of refused previews spends
  the flooder's budget, never the workspace's nor another user's), over every workspace the user is in; the 21st is
  429 RATE_LIMITED with Retry-After, before anything is read into a turn or held.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_knowledge_http import ops
from tests.support.attack import Cast, demo, portal, sign_in
from tests.support.runner import LocalService

pytestmark = pytest.mark.attack

UNKNOWN_AGENT = "prj_01AAAAAAAAAAAAAAAAAAAAAAAA"
QUESTION = "What are your opening hours on Sunday?"


def balance(service: LocalService, jwt: str) -> dict[str, int]:
    reply = portal(service, "GET", "/api/credits/balance", jwt)
    assert reply.status == 200
    return reply.json()["balance"]


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("knowledge/search", {"query": QUESTION}),
        ("preview", {"prompt": QUESTION}),
        ("preview", {"prompt": QUESTION, "behaviour": {"model": "offline-plus"}}),
    ],
    ids=["search", "preview", "preview-with-model"],
)
def test_another_tenants_agent_is_not_found(service: LocalService, cast: Cast, route: str, body: Any) -> None:
    first, second = demo(service)
    agent = first["agents"][0]["id"]
    before = balance(service, cast.owner_a.jwt)
    for workspace in (first["id"], second["id"]):  # A's workspace (B is no member), or B's own naming A's agent
        foreign = portal(service, "POST", f"/api/workspaces/{workspace}/agents/{agent}/{route}", cast.owner_b.jwt, body)
        unknown = portal(service, "POST", f"/api/workspaces/{workspace}/agents/{UNKNOWN_AGENT}/{route}",
                         cast.owner_b.jwt, body)  # fmt: skip
        assert (foreign.status, foreign.json()["code"]) == (404, "NOT_FOUND"), foreign.body
        assert foreign.body == unknown.body
    assert balance(service, cast.owner_a.jwt) == before  # nothing held nor charged to A


def test_a_member_searches_but_a_stranger_with_a_body_error_still_gets_404(service: LocalService, cast: Cast) -> None:
    first, _ = demo(service)
    where = f"/api/workspaces/{first['id']}/agents/{first['agents'][0]['id']}/knowledge/search"
    found = portal(service, "POST", where, cast.member_a.jwt, {"query": QUESTION})
    assert found.status == 200 and found.json()["passages"], found.body  # the barista's hours note
    refused = portal(service, "POST", where, cast.owner_b.jwt, {"limit": 999})  # a 400 would confirm the agent
    assert (refused.status, refused.json()["code"]) == (404, "NOT_FOUND")


def test_previews_are_limited_per_user_whatever_their_answer(service: LocalService, cast: Cast) -> None:
    """A new owner without credits: each preview is refused (402) yet counted, so the 21st in the minute is 429 in
    this workspace and in another of theirs; the flood costs no other user anything, nor touches the demo's owner."""
    flooder = sign_in(service, "preview.flood@example.org")
    ops(service, "set-plan", "--email", flooder.email, "--plan", "pro")  # two workspaces
    made = [portal(service, "POST", "/api/workspaces", flooder.jwt, {"name": f"Flood {n}"}) for n in range(2)]
    agents = []
    for workspace in (reply.json()["workspace"]["id"] for reply in made):
        agent = portal(service, "POST", f"/api/workspaces/{workspace}/agents", flooder.jwt, {"name": "Target"})
        agents.append(f"/api/workspaces/{workspace}/agents/{agent.json()['agent']['id']}/preview")
    codes = [portal(service, "POST", agents[n % 2], flooder.jwt, {"prompt": QUESTION}).json()["code"]
             for n in range(20)]  # fmt: skip
    assert codes == ["INSUFFICIENT_CREDITS"] * 20
    for where in agents:
        refused = portal(service, "POST", where, flooder.jwt, {"prompt": QUESTION})
        assert (refused.status, refused.json()["code"]) == (429, "RATE_LIMITED"), refused.body
        assert int(refused.header("retry-after") or "0") >= 1
    # Refusals aimed at the demo's workspace (404) spend the flooder's budget too, never its owner's: another user,
    # new and without credits, is refused for their credits (402), not for the flood (429).
    first, _ = demo(service)
    aimed = portal(service, "POST", f"/api/workspaces/{first['id']}/agents/{first['agents'][0]['id']}/preview",
                   flooder.jwt, {"prompt": QUESTION})  # fmt: skip
    # Not a member: 404 comes first (over the limit or not, a stranger learns nothing), counted on the flooder only.
    assert (aimed.status, aimed.json()["code"]) == (404, "NOT_FOUND")
    other = sign_in(service, "preview.other@example.org")
    workspace = portal(service, "POST", "/api/workspaces", other.jwt, {"name": "Other"}).json()["workspace"]["id"]
    agent = portal(service, "POST", f"/api/workspaces/{workspace}/agents", other.jwt, {"name": "Mine"}).json()
    mine = portal(service, "POST", f"/api/workspaces/{workspace}/agents/{agent['agent']['id']}/preview", other.jwt,
                  {"prompt": QUESTION})  # fmt: skip
    assert (mine.status, mine.json()["code"]) == (402, "INSUFFICIENT_CREDITS")
