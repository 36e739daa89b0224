"""AWS calls of the management plane's reads and a key mint: the session check, then one membership read."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.call_recorder import Recorder
from tests.support.conversations import VISITOR, store_turn
from tests.support.ledger_checks import ledger_repository
from tests.support.members import ACCEPT, INVITE, REMOVE, ROLE, TRANSFER, invite, joined, link_token
from tests.support.portal import Portal, Session


def portal_get(portal: Portal, function: str, who: Session, **params: str) -> Any:
    return portal.call(function, token=who.token, params=params or None)


@pytest.fixture
def owner(portal: Portal, aws: Any) -> tuple[Session, str]:
    """A signed-in owner of a workspace, with a ledger entry (a history page to read)."""
    who = portal.sign_in("owner@example.com", plan="pro")
    ledger_repository(aws.dynamodb).grant(who.user_id, 5, "topup", "top_1", "Top-up")
    return who, portal.create_workspace(who)["id"]


PORTAL_READS = {  # (function, in a workspace, every call, the calls issued together)
    "workspace-get": ("PortalWorkspaceGetFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1}, {}),
    "workspaces-list": ("PortalWorkspacesListFunction", False, {"GetItem:main": 1, "Query:main": 1,
                                                                "BatchGetItem:main": 1}, {}),
    "members": ("PortalMembersListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 2, "Query:main": 1},
                {"BatchGetItem:main": 1, "Query:main": 1}),
    "brands": ("PortalBrandsListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:main": 1},
               {"BatchGetItem:main": 1, "Query:main": 1}),
    "keys": ("PortalKeysListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:keys": 1},
             {"BatchGetItem:main": 1, "Query:keys": 1}),
    "audit": ("PortalAuditListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:main": 1},
              {"BatchGetItem:main": 1, "Query:main": 1}),
    "invitations": ("PortalInvitationsListFunction", True,
                    {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:main": 1},
                    {"BatchGetItem:main": 1, "Query:main": 1}),
    "account": ("PortalAccountFunction", False, {"GetItem:main": 3}, {}),
    "balance": ("PortalCreditsBalanceFunction", False, {"GetItem:main": 1, "GetItem:ledger": 1}, {}),
    # the balance and HISTORY first, then the page's key range (a ledger not numbered: the book, newest first)
    "history": ("PortalCreditsHistoryFunction", False,
                {"GetItem:main": 1, "BatchGetItem:ledger": 1, "Query:ledger": 1}, {}),
}  # fmt: skip


@pytest.mark.parametrize("case", PORTAL_READS)
def test_portal_reads(portal: Portal, owner: tuple[Session, str], recorder: Recorder, case: str) -> None:
    """The session's GetItem, then the endpoint's own reads (a workspace route's access check: one BatchGetItem)."""
    function, in_workspace, expected, together = PORTAL_READS[case]
    who, workspace_id = owner
    path = {"workspaceId": workspace_id} if in_workspace else {}
    portal_get(portal, function, who, **path)  # a warm container: the signing secret is cached by then
    with recorder.record():
        result = portal_get(portal, function, who, **path)
    assert result.status == 200, result.body
    assert Counter(str(c) for c in recorder.calls) == Counter(expected)
    assert recorder.issued_together() == Counter(together)


def test_a_members_workspace_read_reads_the_owners_plan_after(portal: Portal, recorder: Recorder) -> None:
    """The workspace's ``plan`` is its owner's: read in the access check's batch for the owner (above: one
    BatchGetItem), one GetItem after it for anyone else, since the owner's id is in the workspace it reads."""
    studio = Studio.open(portal, name="Plans")
    member = joined(studio, "m@example.com")
    member.ok("PortalWorkspaceGetFunction")
    with recorder.record():
        assert member.ok("PortalWorkspaceGetFunction")["workspace"]["plan"]["name"] == "pro"
    assert Counter(str(c) for c in recorder.calls) == Counter({"GetItem:main": 2, "BatchGetItem:main": 1})


def test_an_owners_key_mint_reads_access_and_plan_at_once(
    portal: Portal, owner: tuple[Session, str], recorder: Recorder
) -> None:
    who, workspace_id = owner
    portal.mint_key(who, workspace_id, name="warm-up")
    with recorder.record():
        portal.mint_key(who, workspace_id)
    assert Counter(str(c) for c in recorder.calls) == Counter({
        "GetItem:main": 1,  # the session
        "BatchGetItem:main": 1,  # membership, workspace and the caller (the owner: the plan)
        "TransactWriteItems:keys": 1,  # the key and its audit entry (the main table), in one transaction
    })  # fmt: skip


def test_members_and_invitations_writes(portal: Portal, recorder: Recorder) -> None:
    """Each write: the session, its reads (the access check beside what the route names), one transaction."""
    studio = Studio.open(portal)
    admin = joined(studio, "warm@example.com", "admin")  # every function warm
    studio.portal.users.set_plan(admin.who.user_id, "pro")
    invite(studio, "someone@example.com")
    checked = {"GetItem:main": 1, "BatchGetItem:main": 2, "TransactWriteItems:main": 1}
    # The invitation mail's three limits, one after the other (the workspace's, the workspace's for the address, the
    # address's from all workspaces: a refused request never spends those after it): a read and a conditional write
    # each.
    throttled = {"GetItem:rates": 3, "UpdateItem:rates": 3}
    with recorder.record():  # access ‖ the address's invitation and e-mail claim (no account: nothing more)
        invite(studio, "someone@example.com")
    # After the mail, the invitation marked mailed (a keyed retry's replay mails again only an unmarked one).
    mailed = {"UpdateItem:main": 1}
    assert Counter(str(c) for c in recorder.calls) == Counter(checked | throttled | mailed)
    assert recorder.issued_together() == Counter({"BatchGetItem:main": 2})
    who = portal.sign_in("someone@example.com")
    # The token and the caller's user, then the workspace (the answer) and the inviter's membership (their role must
    # still allow the invitation), then the join.
    with recorder.record():
        assert (
            portal.call(ACCEPT, token=who.token, body={"token": link_token(portal, "someone@example.com")}).status
            == 200
        )
    assert Counter(str(c) for c in recorder.calls) == Counter(
        {"GetItem:main": 1, "BatchGetItem:main": 2, "TransactWriteItems:main": 1}
    )
    for function, request in ((ROLE, {"user_id": who.user_id, "body": {"role": "admin"}}),
                              (REMOVE, {"user_id": who.user_id}),
                              (TRANSFER, {"body": {"userId": admin.who.user_id}})):  # fmt: skip
        with recorder.record():  # access ‖ the named member and their user
            assert studio.call(function, **request).status == 200
        assert Counter(str(c) for c in recorder.calls) == Counter(checked), function
        assert recorder.issued_together() == Counter({"BatchGetItem:main": 2}), function
    assert studio.call(INVITE, body={"email": "x@example.com", "role": "admin"}).status == 403  # an admin now


def test_stored_conversations(portal: Portal, owner: tuple[Session, str], recorder: Recorder) -> None:
    """Listing an agent's threads (every visitor's, or one's), reading one and erasing a visitor: the session, then
    the access check with the agent beside the read it guards; the erasure's Queries (the visitor's turns and their
    ratings, together) wait for the check (a stranger must not cost a read of another's conversations), then one
    transaction with its audit entry."""
    who, workspace_id = owner
    created = portal.call("PortalAgentCreateFunction", token=who.token, params={"workspaceId": workspace_id},
                          body={"name": "Barista"})  # fmt: skip
    agent_id = created.json()["agent"]["id"]
    for n in range(3):
        store_turn(portal.aws.dynamodb, workspace_id, agent_id, f"thr_{n}", f"2026-03-01T10:0{n}:00.000Z")
    params = {"workspaceId": workspace_id, "agentId": agent_id}
    reads = {
        "PortalConversationsListFunction": ({"limit": "2"}, {}),
        "PortalConversationGetFunction": ({"client": VISITOR}, {"threadKey": "thr_1"}),
    }
    for query in ({"limit": "2"}, {"limit": "2", "client": VISITOR}):
        reads["PortalConversationsListFunction"] = (query, {})
        for function, (sent, more) in reads.items():
            portal.call(function, token=who.token, params=params | more, query=sent)  # warm
            with recorder.record():
                result = portal.call(function, token=who.token, params=params | more, query=sent)
            assert result.status == 200, result.body
            assert Counter(str(c) for c in recorder.calls) == Counter(
                {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:main": 1}), function  # fmt: skip
            assert recorder.issued_together() == Counter({"BatchGetItem:main": 1, "Query:main": 1}), function
    with recorder.record():
        erased = portal.call("PortalConversationsEraseFunction", token=who.token, params=params,
                             query={"client": VISITOR})  # fmt: skip
    assert (erased.status, erased.json()) == (200, {"deleted": 3})
    assert Counter(str(c) for c in recorder.calls) == Counter({
        "GetItem:main": 1,  # the session
        "BatchGetItem:main": 1,  # membership, workspace and the agent
        # everything the visitor stored with the agent (keys, each turn's createdAt and prompt) and their ratings'
        # rows, together (their turns are older than the days questions are counted: no question item to update)
        "Query:main": 2,
        "TransactWriteItems:main": 1,  # their deletion (each turn with its receipt and unanswered row), the audit entry
    })  # fmt: skip
    assert recorder.issued_together() == Counter({"Query:main": 2})


def test_usage_of_a_key_and_of_an_agent(
    portal: Portal, owner: tuple[Session, str], recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key's usage: the session, then the access check, the workspace's keys, the key's window items with the
    workspace's day items (requests and 429s: one BatchGetItem) and the workspace's usage items (chat turns and
    credits) together: one round trip. An agent's: the same, its requests on the windows of every key the container
    knew the workspace to have (read beside the listing): one round trip on a warm container (issue 43; two before).
    A container's first read of the workspace, or one after a key was minted, reads that key's windows after the
    listing: a second round trip, for the new key only."""
    from core.usage import providers as usage
    from tests.support.round_trips import RoundTrips

    who, workspace_id = owner
    created = portal.call("PortalAgentCreateFunction", token=who.token, params={"workspaceId": workspace_id},
                          body={"name": "Barista"})  # fmt: skip
    agent_id, key_id = created.json()["agent"]["id"], portal.mint_key(who, workspace_id)["id"]
    key_params = {"workspaceId": workspace_id, "keyId": key_id}
    with recorder.record():
        assert portal.call("PortalKeyUsageFunction", token=who.token, params=key_params).status == 200
    assert Counter(str(c) for c in recorder.calls) == Counter(
        {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:keys": 1, "BatchGetItem:rates": 1, "Query:ledger": 1}
    )
    assert recorder.issued_together() == Counter(
        {"BatchGetItem:main": 1, "Query:keys": 1, "BatchGetItem:rates": 1, "Query:ledger": 1}
    )
    rounds = RoundTrips(recorder).attach(monkeypatch)
    agent_params = {"workspaceId": workspace_id, "agentId": agent_id}

    def agent_usage() -> int:
        rounds.reset()
        with recorder.record():
            assert portal.call("PortalAgentUsageFunction", token=who.token, params=agent_params).status == 200
        return rounds.count()

    usage.reader.cache_clear()  # a reader of its own: in process, the key's usage above would have warmed it
    assert agent_usage() == 1 + 2  # the session, then the reads, then the windows of the keys it had not seen
    assert agent_usage() == 1 + 1  # warm: the session, then every read at once
    assert Counter(str(c) for c in recorder.calls) == Counter(
        {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:keys": 1, "BatchGetItem:rates": 1, "Query:ledger": 1}
    )
    assert recorder.issued_together() == Counter(
        {"BatchGetItem:main": 1, "Query:keys": 1, "BatchGetItem:rates": 1, "Query:ledger": 1}
    )
    portal.mint_key(who, workspace_id)
    assert agent_usage() == 1 + 2  # a key minted since: its windows after the listing
    assert agent_usage() == 1 + 1
