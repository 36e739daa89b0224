"""Members and invitations in the console: an owner invites a second person, who opens the mailed link in a browser
of their own (signed out: cookies cleared), signs in through the link's round trip and lands in the workspace with a
member's limits (no write button; the API refuses a write anyway). A wrong address and a used link are said in
words. Then the owner makes them an admin and gives them the workspace."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.common.by import By

from tests.support.console import Console
from tests.support.runner import invitation_link

OWNER = "team-owner@example.com"
INVITED = "team-invited@example.com"
STRANGER = "team-stranger@example.com"
DROPPED = "team-dropped@example.com"


def members_of(console: Console, workspace: str) -> dict[str, dict[str, Any]]:
    answer = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/members")
    assert answer.status == 200, answer.body
    return {m["email"]: m for m in answer.json()}


def row_of(console: Console, user_id: str) -> Any:
    return console.driver.find_element(By.CSS_SELECTOR, f'tr[data-user-id="{user_id}"]')


def pending_table(console: Console) -> str:
    return str(console.driver.find_element(By.CSS_SELECTOR, "table.invitations").text)


def button_in(row: Any, text: str) -> Any:
    return row.find_element(By.XPATH, f".//button[starts-with(normalize-space(), '{text}')]")


def test_an_invited_person_joins_with_a_members_limits_then_becomes_admin_and_owner(console: Console) -> None:
    console.sign_in(OWNER)
    created = console.api(OWNER, "POST", "/api/workspaces", {"name": "Team room"})
    assert created.status in (200, 201), created.body
    workspace = next(w["id"] for w in console.api(OWNER, "GET", "/api/workspaces").json() if w["name"] == "Team room")

    link = invite_in_the_page(console, workspace)
    refused_for_another_address(console, link)
    accepted_by_the_invited(console, workspace, link)
    a_member_sees_no_write_button(console, workspace)
    made_admin_then_owner(console, workspace)


def invite_in_the_page(console: Console, workspace: str) -> str:
    """Two invitations sent from the page, one revoked there; the other's link, from the outbox."""
    console.open(f"/w/{workspace}/members")
    console.wait_role("heading", "Members", exact=True)
    console.wait_text("No invitation is waiting.")
    for email in (DROPPED, INVITED):
        console.fill("Email address", email)
        console.click("button", "Send invitation")
        console.wait_text(f"An invitation is on its way to {email}")
        console.until(f"{email} in the pending list", lambda: email in pending_table(console))  # noqa: B023
    pending = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/invitations").json()["invitations"]
    assert {(i["email"], i["role"]) for i in pending} == {(DROPPED, "member"), (INVITED, "member")}
    assert "Invited by" in pending_table(console) and OWNER in pending_table(console)  # the inviter by address
    console.screenshot("members-owner")
    console.axe("members-owner")

    dropped = next(i for i in pending if i["email"] == DROPPED)
    row = console.driver.find_element(By.CSS_SELECTOR, f'tr[data-invitation-id="{dropped["id"]}"]')
    button_in(row, "Revoke").click()
    console.click("button", "Yes, revoke")
    console.wait_text(f"The invitation of {DROPPED} is revoked.")
    pending = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/invitations").json()["invitations"]
    assert [i["email"] for i in pending] == [INVITED]
    return invitation_link(console.service, INVITED)


def refused_for_another_address(console: Console, link: str) -> None:
    """Someone signed in with another address opens the link: it says so, and the invitation still stands."""
    assert link.startswith(console.url + "/invitations?token="), link
    console.reset()
    console.driver.get(link)
    # Signed out: the console sends the person to sign in, carrying the link's token to come back to.
    console.wait_text("Sign in with the address the invitation was sent to")
    here = console.url_path()
    assert here.startswith("/sign-in?next="), here
    assert parse_qs(urlsplit(here).query)["next"] == [urlsplit(link).path + "?" + urlsplit(link).query]
    console.screenshot("sign-in-for-invitation")
    console.axe("sign-in-for-invitation")
    console.sign_in(STRANGER, path=here, expect="This invitation cannot be accepted")
    console.wait_text(f"the one you are signed in with ({STRANGER})")
    assert console.url_path().startswith("/invitations?token=")
    console.screenshot("accept-invitation-refused")
    console.axe("accept-invitation-refused")


def accepted_by_the_invited(console: Console, workspace: str, link: str) -> None:
    """The invited person, in a fresh session: the link → sign in (the mail's own link, opened in the browser) →
    back to the invitation with its token → accepted → the workspace open."""
    console.reset()
    console.driver.get(link)
    console.wait_text("Sign in with the address the invitation was sent to")
    console.sign_in(INVITED, path=console.url_path(), expect="Agents")
    console.until("the workspace's page", lambda: console.url_path() == f"/w/{workspace}/")
    # The token was kept only across the round trip: nothing of it is left in the browser's storage.
    assert console.driver.execute_script("return window.localStorage.length") == 0
    members = members_of(console, workspace)
    assert members[INVITED]["role"] == "member"
    assert console.api(OWNER, "GET", f"/api/workspaces/{workspace}/invitations").json()["invitations"] == []

    # The same link again: used up, said in words.
    console.driver.get(link)
    console.wait_text("This invitation cannot be accepted")


def a_member_sees_no_write_button(console: Console, workspace: str) -> None:
    """Signed in as the member: no write button on the pages, no audit log; the API refuses the writes anyway."""
    console.open(f"/w/{workspace}/")
    console.wait_role("heading", "Agents", exact=True)
    nav = console.wait_role("navigation", "Workspace")
    assert "Members" in nav.text and "Audit log" not in nav.text
    assert not console.roles("button", "Create agent")

    console.open(f"/w/{workspace}/keys")
    console.wait_text("An owner or admin of this workspace can mint one.")
    assert not console.roles("button", "Mint key") and not console.roles("textbox", "Name")

    console.open(f"/w/{workspace}/members")
    console.wait_text("Your role here: Member")
    console.wait_text(OWNER)
    buttons = {b.text for b in console.driver.find_elements(By.CSS_SELECTOR, "main button") if b.is_displayed()}
    assert buttons == {"Leave workspace"}, buttons  # leaving is the member's own; nothing else
    assert "Invite someone" not in console.text() and "Pending invitations" not in console.text()
    console.screenshot("members-member")
    console.axe("members-member")

    console.open(f"/w/{workspace}/audit")
    console.wait_text("The audit log is for the workspace's owner and admins.")

    member = console.api(INVITED, "POST", f"/api/workspaces/{workspace}/keys", {"name": "mine"})
    assert (member.status, member.json()["code"]) == (403, "FORBIDDEN")
    invite = console.api(
        INVITED, "POST", f"/api/workspaces/{workspace}/invitations", {"email": STRANGER, "role": "member"}
    )
    assert invite.status == 403
    assert console.api(INVITED, "GET", f"/api/workspaces/{workspace}/audit").status == 403


def made_admin_then_owner(console: Console, workspace: str) -> None:
    """The owner makes the member an admin, then gives them the workspace (two steps); the page follows."""
    invited = members_of(console, workspace)[INVITED]
    console.reset()
    console.sign_in(OWNER)
    console.open(f"/w/{workspace}/members")
    console.wait_text("Your role here: Owner")
    row = console.until("the invited person's row", lambda: row_of(console, invited["userId"]))
    assert not [b for b in row.find_elements(By.TAG_NAME, "button") if b.text.startswith("Make owner")]  # not an admin
    button_in(row, "Make admin").click()
    console.wait_text(f"{INVITED} is an admin now.")
    assert members_of(console, workspace)[INVITED]["role"] == "admin"

    row = row_of(console, invited["userId"])
    assert "Admin" in row.text
    button_in(row, "Make owner").click()
    console.wait_text("You stay an admin; only they can give it back.")
    assert members_of(console, workspace)[INVITED]["role"] == "admin"  # nothing happened at the first click
    console.click("button", "Yes, make owner")
    console.wait_text("owns the workspace now; you are an admin.")
    roles = {email: m["role"] for email, m in members_of(console, workspace).items()}
    assert roles == {INVITED: "owner", OWNER: "admin"}
    # The page follows: the old owner is an admin, who changes no role and gives nothing away.
    console.wait_text("Your role here: Admin")
    assert not console.roles("button", "Make admin") and not console.roles("button", "Make member")
    assert not console.roles("button", "Make owner")
    console.screenshot("members-after-transfer")
    console.axe("members-after-transfer")
