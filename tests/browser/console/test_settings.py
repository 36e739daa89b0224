"""The console's workspace settings (pages/workspaces/Settings.tsx) and account page (pages/auth/Account.tsx): the
name, storing conversations, their retention and the low-credits threshold saved and read back through the portal API
(the retention and the threshold cleared again: kept until erased, never low); a member reads them with no save or
delete control; the owner deletes the workspace in two steps (the API no longer has it); the account shows who is
signed in, and signing out ends the session."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.browser.console.test_agents import join_as_member
from tests.support.console import Console

OWNER = "agents-owner@example.com"  # join_as_member invites into a workspace of this owner
MEMBER = "agents-member@example.com"


def test_settings_are_saved_and_the_owner_deletes_the_workspace(console: Console) -> None:
    console.sign_in(OWNER)
    created = console.api(OWNER, "POST", "/api/workspaces", {"name": "Settings studio"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    console.open(f"/w/{workspace}/settings")
    console.wait_role("heading", "Workspace settings")
    assert not console.field("Store visitors' conversations").is_selected()
    console.screenshot("settings")
    console.axe("settings")

    console.fill("Workspace name", "Settings studio renamed")
    console.field("Store visitors' conversations").click()
    console.field("Remove stored conversations after a number of days").click()
    console.fill("Days kept", "30")
    console.field("Count the workspace as low on credits under a balance").click()
    console.fill("Low-credits threshold (credits)", "250")
    console.click("button", "Save settings")
    console.wait_text("Settings saved.")
    stored = console.api(OWNER, "GET", f"/api/workspaces/{workspace}").json()["workspace"]
    assert (stored["name"], stored["storeConversations"], stored["conversationRetentionDays"]) == (
        "Settings studio renamed", True, 30)  # fmt: skip
    assert stored["lowCreditsThreshold"] == 250

    # Read back after a reload; then the retention cleared (kept until erased), the rest untouched.
    console.driver.refresh()
    console.wait_role("heading", "Workspace settings")
    assert console.field("Workspace name").get_attribute("value") == "Settings studio renamed"
    assert console.field("Days kept").get_attribute("value") == "30"
    assert console.field("Low-credits threshold (credits)").get_attribute("value") == "250"
    console.field("Remove stored conversations after a number of days").click()
    console.field("Count the workspace as low on credits under a balance").click()
    console.click("button", "Save settings")
    console.wait_text("Settings saved.")
    stored = console.api(OWNER, "GET", f"/api/workspaces/{workspace}").json()["workspace"]
    assert (stored["name"], stored["storeConversations"], stored["conversationRetentionDays"]) == (
        "Settings studio renamed", True, None)  # fmt: skip
    assert stored["lowCreditsThreshold"] is None

    read_only_for_a_member(console, workspace)
    deleted_in_two_steps(console, workspace)


def read_only_for_a_member(console: Console, workspace: str) -> None:
    """A member reads the settings: every field disabled, no save or delete button; the API refuses them anyway."""
    join_as_member(console, workspace)
    console.reset()
    console.sign_in(MEMBER)
    console.open(f"/w/{workspace}/settings")
    console.wait_text("an owner or admin changes them")
    assert not console.field("Workspace name").is_enabled()
    assert not console.roles("button", "Save settings") and not console.roles("button", "Delete workspace")
    refused = console.api(MEMBER, "PATCH", f"/api/workspaces/{workspace}", {"name": "Mine"})
    assert refused.status == 403, refused.body
    console.axe("settings-member")


def deleted_in_two_steps(console: Console, workspace: str) -> None:
    """The owner deletes it: a first click only asks; the second deletes and goes back to the workspaces."""
    console.reset()
    console.sign_in(OWNER)
    console.open(f"/w/{workspace}/settings")
    console.click("button", "Delete workspace")
    console.wait_text("Delete Settings studio renamed and everything in it?")
    assert console.api(OWNER, "GET", f"/api/workspaces/{workspace}").status == 200
    console.axe("settings-delete")
    console.click("button", "Yes, delete workspace")
    console.wait_text("Your workspaces")
    assert console.url_path() == "/"
    assert console.api(OWNER, "GET", f"/api/workspaces/{workspace}").status == 404


def test_the_account_page_and_signing_out(console: Console) -> None:
    console.sign_in(OWNER)
    account = console.api(OWNER, "GET", "/api/user/account").json()
    console.open("/account")
    console.wait_role("heading", "Your account")
    assert console.driver.find_element(By.CSS_SELECTOR, "[data-testid=account-email]").text == account["email"] == OWNER
    console.wait_text(account["id"])
    console.screenshot("account")
    console.axe("account")
    console.click("button", "Sign out of the console")
    console.wait_text("Sign in to the console")
    # The session is over: the console's pages send the person back to sign in, and no JWT is minted from the cookie.
    console.open("/account")
    console.wait_text("Sign in to the console")
    minted = console.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/auth/api-token', {method: 'POST', credentials: 'same-origin'}).then(r => done(r.status));"
    )
    assert minted == 401
