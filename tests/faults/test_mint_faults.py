"""(b) ``POST /api/workspaces/{id}/keys``, with and without ``Idempotency-Key``, failed at every AWS call.

Afterwards: a 201 carries a key that authenticates and is listed; an error leaves no key the owner
cannot see (at most one record, listed, so it can be revoked). With an ``Idempotency-Key`` the
client's retry (after the in-progress lock lapses, if it answered 409) gets a key, and the
workspace holds exactly that one key, not two.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from core.audit.store import AuditStore
from core.identity import portal_jwt
from core.identity.records import SessionRecord, UserRecord
from core.identity.store import UserStore
from core.keys.key_format import hash_key
from core.keys.store import ApiKeyStore
from core.platform import idempotency_store as idempotency_records
from core.platform import providers as platform_providers
from core.platform.ids import new_id, now_iso, sha256_hex
from core.platform.settings import get_settings
from tests.support.fault_harness import World, answered, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult
from tests.support.portal import Session
from tests.support.seed import Seeder

MINT = "PortalKeysMintFunction"
BODY = {"name": "server", "rateLimit": 120}


@dataclass(frozen=True)
class Minting:
    owner: Session
    workspace_id: str
    idempotency_key: str | None


class LaterClock:
    """``time`` for the idempotency records, moved past the in-progress lock (a client backing off)."""

    def __init__(self, ahead: float) -> None:
        self.ahead = ahead

    def time(self) -> float:
        return time.time() + self.ahead


def signed_in(world: World, user: UserRecord) -> Session:
    """A live session and its portal JWT, written straight to the table (the sign-in flow is not under test,
    and its per-address and per-IP mail throttles would refuse a few hundred sign-ins from one test)."""
    token = secrets.token_urlsafe(32)
    session = SessionRecord(id=new_id("ses"), user_id=user.id, created_at=now_iso(), expires_at=int(time.time()) + 3600)
    UserStore(world.aws.dynamodb, get_settings().main_table).create_session(session, sha256_hex(token))
    jwt = portal_jwt.issue(platform_providers.portal_secret(), user.id, session.id)
    return Session(user.id, user.email, f"session={token}", jwt)


@dataclass(frozen=True)
class MintScenario:
    name: str
    idempotent: bool

    def arrange(self, world: World) -> Minting:
        owner = signed_in(world, world.portal.seed_user(f"{new_id('o').lower()}@example.com", plan="pro"))
        user = world.portal.users.get(owner.user_id)
        assert user is not None  # just seeded
        workspace = Seeder(world.aws.dynamodb).workspace(user, "Keys")
        return Minting(owner, workspace.id, f"idem-{workspace.id}" if self.idempotent else None)

    def mint(self, world: World, state: Minting) -> HttpResult:
        headers = {"Idempotency-Key": state.idempotency_key} if state.idempotency_key else {}
        return world.portal.call(MINT, token=state.owner.token, params={"workspaceId": state.workspace_id},
                                 body=BODY, headers=headers)  # fmt: skip

    def act(self, world: World, state: Minting) -> HttpResult:
        return self.mint(world, state)

    def verify(self, world: World, state: Minting, result: HttpResult, fault: Fault | None) -> None:
        minted = answered(result, 201)
        assert minted or fault is not None
        raw = result.json()["key"]["key"] if minted else None
        if state.idempotency_key:
            retry = self.mint(world, state)
            if retry.status == 409:  # the first attempt's claim is still "in progress": back off past its lock
                framed_error(retry)
                later = LaterClock(idempotency_records.IN_PROGRESS_SECONDS + 1)
                world.monkeypatch.setattr(idempotency_records, "time", later)
                retry = self.mint(world, state)
            assert retry.status == 201, f"the client's retry failed: {retry.status} {retry.body}"
            again = retry.json()["key"]["key"]
            assert raw is None or again == raw, "a retry of a minted key returned another key"
            raw = again
        records = ApiKeyStore(world.aws.dynamodb, get_settings().api_keys_table).list_for_workspace(state.workspace_id)
        listed = world.portal.call("PortalKeysListFunction", token=state.owner.token,
                                   params={"workspaceId": state.workspace_id})  # fmt: skip
        assert listed.status == 200, listed.body
        listed_ids = {k["id"] for k in listed.json()["keys"]}
        assert {r.id for r in records} == listed_ids, "a key record the owner cannot see"
        assert all(r.revoked_at is None and r.name == BODY["name"] for r in records)
        entries = AuditStore(world.aws.dynamodb, get_settings().main_table).newest(state.workspace_id, 50)
        audited = sorted(e.target for e in entries if e.action == "key.mint")
        assert audited == sorted(f"key:{r.id}" for r in records), "a key without its audit entry, or the reverse"
        if raw is None:  # an error, no retry: at most the one key whose answer was lost, and the owner sees it
            assert len(records) <= 1, f"{len(records)} keys from one failed mint"
            return
        assert [r.key_hash for r in records] == [hash_key(raw)], f"{len(records)} keys for one mint"
        assert world.portal.whoami(raw).status == 200, "the minted key does not authenticate"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None  # none known: the key and its idempotency record's completion are one transaction


SCENARIOS = [MintScenario("mint", idempotent=False), MintScenario("mint-idem", idempotent=True)]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
