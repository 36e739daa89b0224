"""The console's audit log: what the test did (a key minted and an invitation sent and revoked in the browser, a
person joining and their role changed through the API), newest first, with people by address, never by user id,
and actions in words; one page at a time ("Load more"), in the API's order."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.common.by import By

from tests.browser.conftest import set_plan
from tests.support.console import Console
from tests.support.runner import invitation_link

OWNER = "audit-owner@example.com"
GUEST = "audit-guest@example.com"
JOINER = "audit-joiner@example.com"
PAGE = 50  # the page's page size (pages/audit/Audit.tsx)


def audit_rows(console: Console) -> list[dict[str, str]]:
    rows = console.driver.find_elements(By.CSS_SELECTOR, "table.audit tbody tr")
    return [
        {
            "action": str(r.get_attribute("data-action")),
            "who": r.find_element(By.CSS_SELECTOR, "td.who").text,
            "what": r.find_element(By.CSS_SELECTOR, "td.what").text,
        }
        for r in rows
    ]


def every_entry(console: Console, workspace: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"?limit={PAGE}" + (f"&cursor={cursor}" if cursor else "")
        page = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/audit{query}").json()
        entries += page["entries"]
        cursor = page["nextCursor"]
        if not cursor:
            return entries


def test_the_audit_log_says_who_did_what_by_address_one_page_at_a_time(console: Console) -> None:
    console.sign_in(OWNER)
    set_plan(console.service, OWNER, "pro")
    assert console.api(OWNER, "POST", "/api/workspaces", {"name": "Audit room"}).status in (200, 201)
    workspace = next(w["id"] for w in console.api(OWNER, "GET", "/api/workspaces").json() if w["name"] == "Audit room")

    # In the browser: a key minted, an invitation sent and revoked.
    console.open(f"/w/{workspace}/keys")
    console.fill("Name", "audit key")
    console.click("button", "Mint key")
    console.wait_text("you will not see it again")
    console.open(f"/w/{workspace}/members")
    console.fill("Email address", GUEST)
    console.click("button", "Send invitation")
    console.wait_text(f"An invitation is on its way to {GUEST}")
    console.click("button", "Revoke")
    console.click("button", "Yes, revoke")
    console.wait_text(f"The invitation of {GUEST} is revoked.")

    # Through the API: another person invited, joining, made an admin; then enough settings changes for two pages.
    invited = console.api(
        OWNER, "POST", f"/api/workspaces/{workspace}/invitations", {"email": JOINER, "role": "member"}
    )
    assert invited.status == 201, invited.body
    token = parse_qs(urlsplit(invitation_link(console.service, JOINER)).query)["token"][0]
    assert console.api(JOINER, "POST", "/api/invitations/accept", {"token": token}).status == 200
    joiner = next(
        m for m in console.api(OWNER, "GET", f"/api/workspaces/{workspace}/members").json() if m["email"] == JOINER
    )
    made = console.api(OWNER, "PATCH", f"/api/workspaces/{workspace}/members/{joiner['userId']}", {"role": "admin"})
    assert made.status == 200, made.body
    for n in range(PAGE):
        renamed = console.api(OWNER, "PATCH", f"/api/workspaces/{workspace}", {"name": f"Audit room {n}"})
        assert renamed.status == 200, renamed.body
    entries = every_entry(console, workspace)
    assert len(entries) > PAGE

    console.open(f"/w/{workspace}/audit")
    console.wait_role("heading", "Audit log", exact=True)
    console.until("the first page", lambda: len(audit_rows(console)) == PAGE)
    first = audit_rows(console)
    assert [r["action"] for r in first] == [e["action"] for e in entries[:PAGE]]  # the API's order: newest first
    assert first[0] == {"action": "workspace.update", "who": OWNER, "what": "changed the workspace's settings"}
    assert "That is the whole log." not in console.text()

    console.click("button", "Load more")
    console.until("the second page", lambda: len(audit_rows(console)) == len(entries))
    rows = audit_rows(console)
    assert [r["action"] for r in rows] == [e["action"] for e in entries]
    console.wait_text("That is the whole log.")
    assert not console.roles("button", "Load more")

    said = [(r["who"], r["what"]) for r in rows if r["action"] != "workspace.update"]
    assert said == [
        (OWNER, f"changed the role of {JOINER}"),
        (JOINER, "joined the workspace"),
        (OWNER, "invited someone"),
        (OWNER, "revoked an invitation"),
        (OWNER, "invited someone"),
        (OWNER, "minted the key “audit key”"),
    ], said
    table = console.driver.find_element(By.CSS_SELECTOR, "table.audit").text
    assert "usr_" not in table, "people are shown by address, never by user id"
    assert joiner["userId"] not in console.driver.page_source
    console.screenshot("audit")
    console.axe("audit")
