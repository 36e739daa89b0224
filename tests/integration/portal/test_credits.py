"""GET /api/credits/balance and /api/credits/history through their handlers (events/*.json, moto)."""

from __future__ import annotations

import pytest

from core.credits import providers as credits_providers
from core.credits.store import LedgerStore
from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from tests.support.lambdas import HttpResult, invoke, with_request
from tests.support.portal import JSON, Portal, Session, assert_error, event_for


def balance(portal: Portal, who: Session) -> HttpResult:
    return portal.call("PortalCreditsBalanceFunction", token=who.token)


def history(portal: Portal, who: Session, **query: str) -> HttpResult:
    event = with_request(event_for("PortalCreditsHistoryFunction", token=who.token), query=query)
    return invoke("PortalCreditsHistoryFunction", event)


@pytest.fixture
def ledger(portal: Portal) -> LedgerStore:
    return LedgerStore(portal.aws.dynamodb, get_settings().ledger_table)


@pytest.fixture
def ava(portal: Portal) -> Session:
    return portal.sign_in("ava@example.com")


def test_a_new_user_has_a_zero_balance(portal: Portal, ava: Session) -> None:
    result = balance(portal, ava)
    assert (result.status, result.header("Content-Type")) == (200, JSON)
    assert result.json() == {
        "balance": {"available": 0, "held": 0, "total": 0},
        "unit": "credits",
        "usdCents": {"available": 0, "held": 0, "total": 0},
    }


def test_balance_counts_holds_and_prices_them(
    portal: Portal, ava: Session, ledger: LedgerStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CREDIT_USD_CENTS", "3")
    platform_providers.reset()
    ledger.grant(ava.user_id, 50, "topup", "inv-1", "Top-up")
    credits_providers.reader().hold(ava.user_id, "llm", "turn_1", 4, "Chat turn")
    assert balance(portal, ava).json() == {
        "balance": {"available": 46, "held": 4, "total": 50},
        "unit": "credits",
        "usdCents": {"available": 138, "held": 12, "total": 150},
    }


def test_each_user_sees_only_their_own_credits(portal: Portal, ava: Session, ledger: LedgerStore) -> None:
    ledger.grant(ava.user_id, 50, "topup", "inv-1", "Top-up")
    bob = portal.sign_in("bob@example.com")
    assert balance(portal, bob).json()["balance"]["total"] == 0
    assert history(portal, bob).json() == {"entries": [], "total": 0, "limit": 50, "offset": 0}


def seed_history(ava: Session, ledger: LedgerStore) -> None:
    """Oldest first: 5 top-ups, 3 settled chat turns, 1 refund (9 entries)."""
    for n in range(5):
        ledger.grant(ava.user_id, 10, "topup", f"inv-{n}", f"Top-up {n}")
    for n in range(3):
        hold = credits_providers.reader().hold(ava.user_id, "llm", f"turn_{n}", 1, f"Chat turn {n}")
        credits_providers.reader().settle(hold)
    ledger.grant(ava.user_id, 1, "refund", "turn_0", "Refund of a turn")


def test_history_is_newest_first_with_every_field(portal: Portal, ava: Session, ledger: LedgerStore) -> None:
    seed_history(ava, ledger)
    result = history(portal, ava)
    assert (result.status, result.header("Content-Type")) == (200, JSON)
    page = result.json()
    assert (page["total"], page["limit"], page["offset"], len(page["entries"])) == (9, 50, 0, 9)
    assert [e["description"] for e in page["entries"]] == [
        "Refund of a turn", "Chat turn 2", "Chat turn 1", "Chat turn 0",
        "Top-up 4", "Top-up 3", "Top-up 2", "Top-up 1", "Top-up 0",
    ]  # fmt: skip
    turn = page["entries"][1]
    assert turn == {
        "id": turn["id"], "accountId": ava.user_id, "amountCredits": -1, "refType": "llm", "refId": "turn_2",
        "description": "Chat turn 2", "createdAt": turn["createdAt"],
    }  # fmt: skip
    assert turn["id"].startswith("led_") and turn["createdAt"].endswith("Z")
    times = [e["createdAt"] for e in page["entries"]]
    assert times == sorted(times, reverse=True)


def test_history_pages_with_limit_and_offset(portal: Portal, ava: Session, ledger: LedgerStore) -> None:
    seed_history(ava, ledger)
    every = history(portal, ava).json()["entries"]
    pages = [history(portal, ava, limit="4", offset=str(offset)).json() for offset in (0, 4, 8, 12)]
    assert [(p["limit"], p["offset"], p["total"]) for p in pages] == [(4, o, 9) for o in (0, 4, 8, 12)]
    assert [e for p in pages for e in p["entries"]] == every
    assert pages[-1]["entries"] == []


def test_history_filters_by_ref_type(portal: Portal, ava: Session, ledger: LedgerStore) -> None:
    seed_history(ava, ledger)
    llm = history(portal, ava, refType="llm").json()
    assert llm["total"] == 3 and [e["refId"] for e in llm["entries"]] == ["turn_2", "turn_1", "turn_0"]
    second = history(portal, ava, refType="topup", limit="2", offset="2").json()
    assert second["total"] == 5 and [e["refId"] for e in second["entries"]] == ["inv-2", "inv-1"]
    assert history(portal, ava, refType="voice").json() == {"entries": [], "total": 0, "limit": 50, "offset": 0}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"), ({"limit": "201"}, "limit"), ({"limit": "ten"}, "limit"),
        ({"limit": "1.5"}, "limit"), ({"limit": ""}, "limit"), ({"offset": "-1"}, "offset"),
        ({"offset": "x"}, "offset"), ({"refType": "gift"}, "refType"), ({"refType": ""}, "refType"),
    ],
)  # fmt: skip
def test_bad_history_parameters_are_400(portal: Portal, ava: Session, query: dict[str, str], field: str) -> None:
    result = history(portal, ava, **query)
    assert_error(result, 400, "VALIDATION_ERROR")
    assert result.json()["error"].startswith(f"{field}:")


def test_limits_at_the_edges_are_accepted(portal: Portal, ava: Session) -> None:
    assert history(portal, ava, limit="1").json()["limit"] == 1
    assert history(portal, ava, limit="200", offset="0", ignored="x").json()["limit"] == 200


@pytest.mark.parametrize("function", ["PortalCreditsBalanceFunction", "PortalCreditsHistoryFunction"])
def test_credits_need_a_portal_jwt(portal: Portal, ava: Session, function: str) -> None:
    assert_error(portal.call(function, token=None), 401, "UNAUTHORIZED")
    assert_error(portal.call(function, token=ava.token + "x"), 401, "UNAUTHORIZED")
    workspace_key = "sk_ws_000000000000000000000000000000000000000000g0gJl6Z"
    assert_error(portal.call(function, token=workspace_key), 401, "UNAUTHORIZED")
