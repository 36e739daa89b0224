"""The console's credits page (issue 41): the balance and the ledger (its first page, a filter by kind, the next page)
equal the API's answers, and the chart of the balance at the end of each day and the day's spending is the one the
API's numbers give: today's total less the entries after each day, from the newest page of the ledger."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from tests.support.console import Console
from tests.support.console_visits import ask, shop
from tests.support.load import ops

pytestmark = pytest.mark.browser

OWNER = "console-credits@example.com"
GRANTS = 26  # small top-ups on top of the scene's first: more entries than one page of 25


def shown_entries(console: Console) -> list[tuple[str, str]]:
    from selenium.webdriver.common.by import By

    rows = console.driver.find_elements(By.CSS_SELECTOR, "table[data-testid=ledger] tbody tr")
    amount = "[data-field=amount]"
    return [
        (r.get_attribute("data-entry"), r.find_element(By.CSS_SELECTOR, amount).get_attribute("data-credits"))
        for r in rows
    ]


def entries(history: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["id"], str(e["amountCredits"])) for e in history["entries"]]


def daily(total: int, newest_page: list[dict[str, Any]], whole: bool, limit: int = 30) -> dict[str, dict[str, str]]:
    """The end-of-day totals and the day's charges: the total less every entry after that day, back to the oldest
    day the page holds whole."""
    net: dict[date, int] = {}
    charged: dict[date, int] = {}
    for e in newest_page:
        day = datetime.fromisoformat(e["createdAt"]).astimezone(UTC).date()
        net[day] = net.get(day, 0) + e["amountCredits"]
        charged[day] = charged.get(day, 0) + max(0, -e["amountCredits"])
    oldest, day = min(net), max(*net, datetime.now(UTC).date())
    rows: dict[str, dict[str, str]] = {}
    running = total
    while len(rows) < limit and (day > oldest or (day == oldest and whole)):
        rows[day.isoformat()] = {"Balance": str(running), "Spent": str(charged.get(day, 0))}
        running -= net.get(day, 0)
        day -= timedelta(days=1)
    return dict(sorted(rows.items()))


def test_balance_ledger_and_chart_equal_the_apis(console: Console) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    scene = shop(console, OWNER, answered=False, credits=150)
    for n in range(GRANTS):
        assert ops(console.service, "grant", "--email", OWNER, "--credits", "1", "--type", "adjustment",
                   "--ref-id", f"credits-test-{n}")["applied"] is True  # fmt: skip
    with scene.visitor("ava") as ava:
        ask(ava, scene, "Hello?")
        ask(ava, scene, "Anyone there?")

    console.sign_in(OWNER)
    console.open(f"/w/{scene.workspace}/credits")
    console.wait_role("heading", "Credits")
    balance = scene.api("GET", "/api/credits/balance")["balance"]
    assert balance["held"] == 0  # both turns settled

    def amounts() -> dict[str, str]:
        dl = console.driver.find_element(By.CSS_SELECTOR, "dl[data-testid=balance]")
        shown = {d.get_attribute("data-amount"): d.find_element(By.CSS_SELECTOR, "[data-credits]") for d in
                 dl.find_elements(By.CSS_SELECTOR, "[data-amount]")}  # fmt: skip
        return {name: element.get_attribute("data-credits") for name, element in shown.items()}

    console.until("the balance", lambda: amounts() == {k: str(v) for k, v in balance.items()})

    first = scene.api("GET", "/api/credits/history?limit=50&offset=0")
    assert first["total"] == 1 + GRANTS + 2
    console.until("the ledger's first page", lambda: shown_entries(console) == entries(first))
    console.wait_text(f"Entries 1\N{EN DASH}{len(first['entries'])} of {first['total']}, newest first.")

    newest = scene.api("GET", "/api/credits/history?limit=200&offset=0")
    assert sum(e["amountCredits"] for e in newest["entries"]) == balance["total"]  # the ledger is the total
    expected = daily(balance["total"], newest["entries"], newest["total"] <= len(newest["entries"]))
    console.until("the chart's numbers", lambda: console.chart_numbers("credits-daily") == expected)
    console.screenshot("credits")
    console.axe("credits")

    # A kind: the API's answer with refType.
    Select(console.field("Kind")).select_by_value("llm")
    charges = scene.api("GET", "/api/credits/history?limit=50&offset=0&refType=llm")
    assert [e["refType"] for e in charges["entries"]] == ["llm", "llm"]
    console.until("the chat turns' entries", lambda: shown_entries(console) == entries(charges))

    # Every kind, 25 a page: the next page is the API's offset 25.
    Select(console.field("Kind")).select_by_value("")
    Select(console.field("Entries a page")).select_by_visible_text("25")
    page_one = scene.api("GET", "/api/credits/history?limit=25&offset=0")
    console.until("the first page of 25", lambda: shown_entries(console) == entries(page_one))
    console.click("button", "Older entries")
    page_two = scene.api("GET", "/api/credits/history?limit=25&offset=25")
    assert len(page_two["entries"]) == first["total"] - 25
    console.until("the second page", lambda: shown_entries(console) == entries(page_two))
    console.wait_text(f"Entries 26\N{EN DASH}{first['total']} of {first['total']}, newest first.")
