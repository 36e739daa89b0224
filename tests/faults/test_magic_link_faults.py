"""(e) ``POST /api/auth/magic-link/verify``, for a first sign-in and a known user, failed at every AWS call.

Afterwards: a 200 comes with a cookie that works; an error leaves the link usable, so the user's
retry signs in. Either way exactly one user has the address and exactly one session exists (the
one whose cookie the browser holds), and the link is used up.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from core.identity.store import UserStore
from core.platform.ids import new_id, sha256_hex
from core.platform.settings import get_settings
from tests.support.fault_harness import World, answered, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult


@dataclass(frozen=True)
class SignIn:
    email: str
    token: str


def main_items(world: World, attribute: str, value: str, prefix: str) -> list[dict[str, Any]]:
    """Main-table items whose ``pk`` starts with ``prefix`` and whose ``attribute`` is ``value``."""
    scan = {"TableName": get_settings().main_table, "FilterExpression": "begins_with(pk, :p) AND #a = :v",
            "ExpressionAttributeNames": {"#a": attribute},
            "ExpressionAttributeValues": {":p": {"S": prefix}, ":v": {"S": value}}}  # fmt: skip
    return [i for page in world.aws.dynamodb.get_paginator("scan").paginate(**scan) for i in page["Items"]]


@dataclass(frozen=True)
class MagicLinkScenario:
    name: str
    known_user: bool

    def arrange(self, world: World) -> SignIn:
        email = f"{new_id('u').lower()}@example.com"
        if self.known_user:
            world.portal.seed_user(email)
        token = secrets.token_urlsafe(32)
        UserStore(world.aws.dynamodb, get_settings().main_table).put_magic_token(
            sha256_hex(token), email, int(time.time()) + 900
        )
        return SignIn(email, token)

    def act(self, world: World, state: SignIn) -> HttpResult:
        return world.portal.verify(state.token)

    def verify(self, world: World, state: SignIn, result: HttpResult, fault: Fault | None) -> None:
        if not answered(result):
            result = world.portal.verify(state.token)
            assert result.status == 200, f"the link was used up by the failed attempt: {result.body}"
        cookie = (result.header("Set-Cookie") or "").split(";", 1)[0]
        assert world.portal.api_token(cookie).status == 200, "the session cookie does not work"
        user_id = result.json()["user"]["id"]
        users = main_items(world, "email", state.email, "USER#")
        assert [u["id"]["S"] for u in users] == [user_id], f"{len(users)} users for one address"
        sessions = main_items(world, "userId", user_id, "SESSION#")
        pointers = main_items(world, "userId", user_id, "SESSIONTOKEN#")
        assert (len(sessions), len(pointers)) == (1, 1), f"{len(sessions)} sessions for one sign-in"
        assert world.portal.verify(state.token).status == 401, "the link works twice"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        # None known: the handler reads the account before the one transaction that uses up the link and starts
        # the session, and nothing after it can fail, so every position (after the commit too) must pass plainly.
        return None


SCENARIOS = [MagicLinkScenario("magic-new", known_user=False), MagicLinkScenario("magic-known", known_user=True)]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
