"""The console's keys page: a key minted with an allowed origin and its raw key shown once (with a copy button, gone
after a reload), its usage per day drawn from the API's numbers after read-plane calls with it, and its revocation
(the read plane answers 401 from then on). A member of the workspace sees the keys but no mint or revoke button."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import set_plan
from tests.support import log_scan
from tests.support.console import Console

OWNER = "keys-owner@example.com"
ORIGIN = "https://shop.example.com"


def workspace_of(console: Console, email: str, name: str) -> str:
    created = console.api(email, "POST", "/api/workspaces", {"name": name})
    assert created.status in (200, 201), created.body
    listed = console.api(email, "GET", "/api/workspaces").json()
    return next(w["id"] for w in listed if w["name"] == name)


def usage_of(console: Console, workspace: str, key_id: str) -> list[dict[str, Any]]:
    answer = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/keys/{key_id}/usage?days=30")
    assert answer.status == 200, answer.body
    return list(answer.json()["days"])


def test_a_key_is_minted_shown_once_counted_and_revoked(console: Console) -> None:
    console.sign_in(OWNER)
    set_plan(console.service, OWNER, "pro")  # a free plan mints no key (402 API_KEYS_NOT_AVAILABLE)
    workspace = workspace_of(console, OWNER, "Keys shop")
    console.open(f"/w/{workspace}/keys")
    console.wait_role("heading", "Keys", exact=True)
    console.wait_text("This workspace has no key yet.")
    console.screenshot("keys-empty")
    console.axe("keys-empty")

    raw, key = mint_in_the_page(console, workspace)
    shown_once(console, raw, key)
    usage_drawn_from_the_api(console, workspace, raw, key)
    revoked_in_two_steps(console, workspace, raw, key)


def mint_in_the_page(console: Console, workspace: str) -> tuple[str, dict[str, Any]]:
    """The mint form filled as a person does; the raw key read from the page, copied with its button."""
    console.fill("Name", "shop front")
    console.fill("Allowed origins", ORIGIN)
    console.fill("Rate limit", "120")
    console.click("button", "Mint key")
    console.wait_text("you will not see it again")
    raw = console.driver.find_element(By.CSS_SELECTOR, "[data-testid=raw-key]").text.strip()
    log_scan.register_secret(raw)
    assert raw.startswith("sk_ws_"), raw
    (key,) = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/keys").json()["keys"]
    assert (key["name"], key["allowedOrigins"], key["rateLimit"]) == ("shop front", [ORIGIN], 120)
    assert raw.startswith(key["prefix"])
    # The new key's heading takes the focus, so a screen reader reads the warning first.
    assert console.driver.switch_to.active_element.text.startswith("Your new key")

    # The copy button puts the raw key on the clipboard.
    console.driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": console.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    console.click("button", "Copy the key")
    console.wait_role("button", "Copied")
    copied = console.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.readText().then(done, e => done('refused: ' + e));"
    )
    assert copied == raw
    console.screenshot("keys-minted")
    console.axe("keys-minted")
    return raw, key


def shown_once(console: Console, raw: str, key: dict[str, Any]) -> None:
    """A reload shows the key's metadata (its prefix, its origin), never the raw key again."""
    console.driver.refresh()
    console.wait_text("shop front")
    console.wait_text(ORIGIN)
    assert raw not in console.driver.page_source
    assert "you will not see it again" not in console.text()
    row = console.driver.find_element(By.CSS_SELECTOR, f'tr[data-key-id="{key["id"]}"]')
    assert key["prefix"] in row.text and "120 a minute" in row.text and "Active" in row.text


def usage_drawn_from_the_api(console: Console, workspace: str, raw: str, key: dict[str, Any]) -> None:
    """Read-plane calls with the key: two allowed (a server sends no Origin), one from a site the key does not name
    (refused before it is counted); then the charts' numbers are the API's, day by day."""
    assert console.service.brain_get("/v1/agent/_whoami", raw).status == 200
    assert console.service.brain_get("/v1/agent/_whoami", raw).status == 200
    refused = console.service.brain_get("/v1/agent/_whoami", raw, Origin="https://elsewhere.example.com")
    assert refused.status == 403, refused.body
    days = usage_of(console, workspace, key["id"])
    today = days[-1]
    assert today["requests"] == 2, days

    console.click("button", "Usage of shop front")
    console.wait_role("heading", "Usage of “shop front”")
    drawn = console.chart_numbers("key-requests")
    chat = console.chart_numbers("key-chat")
    assert list(drawn) == [d["date"] for d in days]
    for day in days:
        assert int(drawn[day["date"]]["Requests"]) == day["requests"], (day, drawn[day["date"]])
        assert int(drawn[day["date"]]["Refused (rate limit)"]) == day["rateLimited"]
        assert int(chat[day["date"]]["Chat turns"]) == day["chatTurns"]
        assert float(chat[day["date"]]["Credits"]) == float(day["credits"])
    assert drawn[today["date"]]["Requests"] == "2"
    console.wait_text("2 requests, 0 chat turns and 0 credits in the last 30 days")
    console.screenshot("keys-usage")
    console.axe("keys-usage")


def revoked_in_two_steps(console: Console, workspace: str, raw: str, key: dict[str, Any]) -> None:
    """Revoke asks once more in place; then the read plane refuses the key."""
    row = console.driver.find_element(By.CSS_SELECTOR, f'tr[data-key-id="{key["id"]}"]')
    row.find_element(By.XPATH, ".//button[normalize-space()='Revoke']").click()
    console.wait_text("Every site using it stops working at once.")
    assert console.service.brain_get("/v1/agent/_whoami", raw).status == 200  # nothing happened at the first click
    console.click("button", "Yes, revoke")
    console.wait_text("is revoked")
    console.wait_text("Revoked")
    assert console.service.brain_get("/v1/agent/_whoami", raw).status == 401
    revoked = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/keys").json()["keys"][0]
    assert revoked["revokedAt"]
    assert not console.roles("button", "Revoke", exact=True)


def test_a_plan_without_keys_is_said_in_words(console: Console) -> None:
    email = "keys-free@example.com"
    console.sign_in(email)
    workspace = workspace_of(console, email, "Free keys")
    console.open(f"/w/{workspace}/keys")
    console.fill("Name", "site")
    console.click("button", "Mint key")
    alert = console.wait_role("alert")
    assert "API_KEYS_NOT_AVAILABLE" in alert.text, alert.text
    assert console.api(email, "GET", f"/api/workspaces/{workspace}/keys").json()["keys"] == []
