"""Schema fuzzing of the management plane with schemathesis: every operation, with and without a portal JWT.

Zero 5xx, and every response conforms to ``docs/openapi/portal.json`` as the runner serves it.
The signed-in run works in a workspace of its own holding one of each resource the writer's routes name (an
agent, a post, an item, a brand, a workflow, an object: ``fuzzing_ground``), so their ids resolve; each DELETE
is given a second one to delete. It leaves out the two operations that end what it runs on (sign-out and deleting
its workspace); the anonymous run covers them like every other operation.

A third run chains requests along the document's links (short in ``make test``: ``FUZZ_STATEFUL_EXAMPLES``
scenarios, no time bound; long in ``make fuzz``, ``FUZZ_PHASES`` holding ``stateful``)
(create → get → patch → delete of agents, posts, items, brands, workflows; invitations made and revoked; keys minted
and revoked; an agent's conversations and usage; with the ids the service answered) and checks,
besides the rest, that what was created can be read and what was deleted cannot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fuzz import (
    MAX_EXAMPLES,
    MAX_TIME,
    STATEFUL,
    STATEFUL_EXAMPLES,
    STATEFUL_EXCLUDED_CHECKS,
    STATELESS,
    Ground,
    fuzz,
    fuzzing_ground,
)
from tests.support.load import ops
from tests.support.runner import LocalService, portal, sign_in, started_service

_DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi" / "portal.json"
_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}
# Every operation the document publishes is fuzzed: a new route is covered without editing this file.
OPERATIONS = sum(m in _METHODS for item in json.loads(_DOCUMENT.read_text())["paths"].values() for m in item)
ENDS_THE_RUN = ("POST /api/auth/logout", "DELETE /api/workspaces/{workspaceId}")

pytestmark = pytest.mark.fuzz
stateless = pytest.mark.skipif(not STATELESS, reason="FUZZ_PHASES has no stateless phase")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("fuzz-portal"))


@pytest.fixture(scope="module")
def signed_in(service: LocalService) -> dict[str, str]:
    """The demo owner's JWT and cookie, a workspace of its own and a key in it, for path parameters."""
    cookie, jwt = sign_in(service, service.demo["workspaces"][0]["ownerEmail"])
    created = portal(service, "POST", "/api/workspaces", jwt, {"name": "Fuzzing ground"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    minted = portal(service, "POST", f"/api/workspaces/{workspace}/keys", jwt, {"name": "fuzzed"})
    assert minted.status == 201, minted.body
    return {"jwt": jwt, "cookie": cookie, "workspace": workspace, "key": minted.json()["key"]["id"]}


@pytest.fixture(scope="module")
def ground(service: LocalService, signed_in: dict[str, str]) -> Ground:
    return fuzzing_ground(service, signed_in["jwt"], signed_in["workspace"])


@stateless
def test_every_portal_operation_conforms_signed_in(
    service: LocalService, signed_in: dict[str, str], ground: Ground, tmp_path: Path
) -> None:
    run = fuzz(
        "portal-signed-in", service.portal, tmp_path,
        headers={"Authorization": f"Bearer {signed_in['jwt']}"},  # no cookie: negative cases must be able to drop it
        parameters=ground.parameters | {"path.keyId": signed_in["key"]},
        operation_parameters=ground.deletions,
        exclude_operations=ENDS_THE_RUN,
    )  # fmt: skip
    print(run.summary())
    assert run.operations == OPERATIONS - len(ENDS_THE_RUN) and run.cases > 0
    assert run.failures == [], run.output[-6000:]


@stateless
def test_every_portal_operation_conforms_without_credentials(service: LocalService, tmp_path: Path) -> None:
    # Every answer here is a 401, so the coverage phase's boundary cases (every parameter missing, empty, of the wrong
    # type, and so on: ~40 an operation) are what is worth sending, and they end by themselves: ~2,000 cases, all 49
    # operations, in ~13 s. The fuzzing phase (hypothesis) adds more 401s at ~13 a second, and in a time bound it left
    # operations unreached (41 of 49 in 45 s on a loaded machine). The bound only stops a stuck run.
    run = fuzz("portal-anonymous", service.portal, tmp_path, phases="coverage", max_time=3 * OPERATIONS)
    print(run.summary())
    assert run.operations == OPERATIONS and run.cases > 0
    assert run.failures == [], run.output[-6000:]


def test_portal_resources_chain_along_the_links(
    service: LocalService, signed_in: dict[str, str], ground: Ground, tmp_path: Path
) -> None:
    """The writer's operations in the fuzzing workspace (the only id fixed, so nothing is written elsewhere): each
    other id comes along a link, but a post's and an item's agent, which is the ground's (its object is what a post
    and an item must name to be created), and the owner on the business plan (200 agents, not 25)."""
    assert ops(service, "set-plan", "--email", service.demo["workspaces"][0]["ownerEmail"], "--plan", "business")
    agent = "/api/workspaces/{workspaceId}/agents/{agentId}"
    in_ground = {"path.agentId": ground.agent}
    under = ("GET posts", "PATCH posts/{postId}", "DELETE posts/{postId}", "POST posts/{postId}/publish",
             "POST posts/{postId}/unpublish", "GET items", "PATCH items/{itemId}", "DELETE items/{itemId}")  # fmt: skip
    operations = {f"{method} {agent}/{path}": in_ground for method, path in (o.split() for o in under)}
    operations[f"POST {agent}/posts"] = in_ground | {"body.key": ground.media}
    operations[f"POST {agent}/items"] = in_ground | {"body.r2Key": ground.object}
    run = fuzz(
        "portal-stateful", service.portal, tmp_path,
        headers={"Authorization": f"Bearer {signed_in['jwt']}"},
        parameters={"path.workspaceId": signed_in["workspace"]}, operation_parameters=operations,
        include_path_regex=r"^/api/workspaces/\{workspaceId\}/(agents|brands|workflows|keys|invitations|members|audit)",
        phases="stateful", excluded_checks=STATEFUL_EXCLUDED_CHECKS,
        # A key's DELETE revokes it, and the owner still reads what a revoked key did (keys are listed revoked
        # included): its usage answering 200 after the DELETE is the contract, which the stateful phase takes for a
        # resource used after its deletion (ST301; its per-operation switch does not override `--checks all`). The
        # usage read is fuzzed by the stateless runs above, and its link is held by tests/fuzz/test_links.py.
        exclude_operations=("GET /api/workspaces/{workspaceId}/keys/{keyId}/usage",),
        infer_links=False,  # the document's links, the ones its clients are told about
        # make test: a fixed number of scenarios, run once (what it reaches is the seed's, not the machine's load)
        max_time=MAX_TIME if STATEFUL else None, max_examples=MAX_EXAMPLES if STATEFUL else STATEFUL_EXAMPLES,
    )  # fmt: skip
    print(run.summary())
    reached = run.succeeded("stateful")
    print(f"2xx along the links from {len(reached)} operations: {sorted(reached)}")
    assert run.cases > 0
    assert run.failures == [], run.output[-6000:]
    # An id nothing fixed (a new agent's, brand's, workflow's, post's, item's) was used while it was alive: the
    # links are followed, not just declared.
    workspace = "/api/workspaces/{workspaceId}"
    paths = [agent, f"{agent}/posts/{{postId}}", f"{agent}/items/{{itemId}}", f"{workspace}/brands/{{brandId}}",
             f"{workspace}/workflows/{{workflowId}}"]  # fmt: skip
    assert reached & {f"{method} {path}" for method in ("PATCH", "DELETE") for path in paths}, sorted(reached)
    # And the operations of teams and usage along theirs: an invitation or a key revoked, an agent's conversations
    # or usage read, each with an id the service answered.
    along = {f"DELETE {workspace}/invitations/{{invitationId}}", f"DELETE {workspace}/keys/{{keyId}}",
             f"GET {agent}/usage", f"GET {agent}/conversations"}  # fmt: skip
    assert reached & along, sorted(reached)
