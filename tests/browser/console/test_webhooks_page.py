"""The console's webhooks page (issue 42) against the runner, with a receiver of the test's own on loopback (the
console tests' runner allows http:// on loopback, ``WEBHOOK_ALLOW_LOCAL``, as only a local runner may): a webhook
added with chosen events and its signing secret shown once (copied with its button, gone after a reload); a test
event sent from the page, received, and verified with the published ``standardwebhooks`` library (not our code);
the secret rotated (the new one shown once, and both signing the next test); edited, disabled and enabled; a
delivery that failed every attempt, found with the status filter and sent again with Retry; deliveries paged with
"Load more"; deleted in two steps. A member of the workspace gets no Webhooks entry and no control."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from standardwebhooks.webhooks import Webhook as Verifier

from tests.browser.conftest import set_plan
from tests.browser.console.test_agents import row_of
from tests.support import log_scan
from tests.support.console import Console
from tests.support.runner import invitation_link

OWNER = "webhooks-owner@example.com"
MEMBER = "webhooks-member@example.com"
DESCRIPTION = "CRM"


@dataclass
class Receiver:
    """An HTTP receiver on loopback: every request kept (headers, body); ``status`` is what it answers."""

    status: int = 200
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/crm"

    def of_type(self, kind: str) -> list[tuple[dict[str, str], bytes]]:
        with self.lock:
            return [(h, b) for h, b in self.received if json.loads(b).get("type") == kind]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    kept = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with kept.lock:
                kept.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(kept.status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    kept.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield kept
    server.shutdown()
    server.server_close()


def workspace_of(console: Console, email: str, name: str) -> str:
    created = console.api(email, "POST", "/api/workspaces", {"name": name})
    assert created.status in (200, 201), created.body
    return str(created.json()["workspace"]["id"])


def webhooks_of(console: Console, workspace: str) -> list[dict[str, Any]]:
    answer = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/webhooks")
    assert answer.status == 200, answer.body
    return list(answer.json()["webhooks"])


def deliveries_of(console: Console, workspace: str, webhook: str, query: str = "") -> dict[str, Any]:
    answer = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/webhooks/{webhook}/deliveries{query}")
    assert answer.status == 200, answer.body
    result: dict[str, Any] = answer.json()
    return result


def shown_secret(console: Console) -> str:
    css = "[data-testid=webhook-secret]"
    found = console.until("the secret", lambda: console.driver.find_elements(By.CSS_SELECTOR, css))
    secret = str(found[0].text.strip())
    log_scan.register_secret(secret)
    assert secret.startswith("whsec_"), secret
    return secret


def test_a_webhook_is_added_tested_rotated_edited_retried_and_deleted(console: Console, receiver: Receiver) -> None:
    console.sign_in(OWNER)
    set_plan(console.service, OWNER, "pro")  # room for a member
    workspace = workspace_of(console, OWNER, "Webhooks shop")
    console.open(f"/w/{workspace}/webhooks")
    console.wait_role("heading", "Webhooks", exact=True)
    console.wait_text("This workspace has no webhook yet.")
    console.screenshot("webhooks-empty")
    console.axe("webhooks-empty")

    secret, hook = added_in_the_page(console, workspace, receiver)
    sent_and_verified(console, workspace, hook, receiver, secrets=[secret])
    rotated = rotated_in_two_steps(console, secret)
    sent_and_verified(console, workspace, hook, receiver, secrets=[secret, rotated], sent_before=1)
    edited_disabled_and_enabled(console, workspace, hook)
    failed_then_retried(console, workspace, hook, receiver)
    paged(console, workspace, hook)
    deleted_in_two_steps(console, workspace, hook)
    member_sees_no_control(console, workspace)


def added_in_the_page(console: Console, workspace: str, receiver: Receiver) -> tuple[str, dict[str, Any]]:
    """The form as a person fills it: the URL, two events ticked (all events unticked first), a description."""
    console.fill("URL", receiver.url)
    console.click("checkbox", "All events")
    console.click("checkbox", "A visitor rates a reply")
    console.click("checkbox", "Someone joins the workspace")
    console.fill("Description", DESCRIPTION)
    console.click("button", "Add webhook")
    console.wait_text("you will not see it again")
    secret = shown_secret(console)
    (hook,) = webhooks_of(console, workspace)
    assert (hook["url"], hook["events"], hook["description"], hook["enabled"]) == (
        receiver.url, ["feedback.created", "member.joined"], DESCRIPTION, True,
    )  # fmt: skip
    assert "secret" not in json.dumps(hook) and secret not in json.dumps(hook)
    # The heading takes the focus, so a screen reader reads the warning first.
    assert console.driver.switch_to.active_element.text.startswith("The signing secret of")

    console.driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": console.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    console.click("button", "Copy the secret")
    console.wait_role("button", "Copied")
    copied = console.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.readText().then(done, e => done('refused: ' + e));"
    )
    assert copied == secret
    row = row_of(console, "data-webhook-id", hook["id"])
    assert "feedback.created, member.joined" in row.text and DESCRIPTION in row.text and "Enabled" in row.text
    console.screenshot("webhooks-added")
    console.axe("webhooks-added")

    # Held in the page's memory only: a reload shows the webhook, never the secret again.
    console.driver.refresh()
    row_of(console, "data-webhook-id", hook["id"])
    assert secret not in console.driver.page_source and "you will not see it again" not in console.text()
    return secret, hook


def sent_and_verified(console: Console, workspace: str, hook: dict[str, Any], receiver: Receiver, *,
                        secrets: list[str], sent_before: int = 0) -> None:  # fmt: skip
    """The "Send test" button: the receiver gets ``webhook.test``, which the published verifier accepts with each
    live secret (two signatures after a rotation); the page's deliveries list it as delivered (its Refresh)."""
    console.click("button", f"Send test to {receiver.url}")
    console.wait_text("webhook.test event is on its way")
    console.wait_role("heading", "Deliveries to")
    got = console.until("the test event", lambda: (t := receiver.of_type("webhook.test"))[sent_before:] and t)
    headers, body = got[-1]
    for secret in secrets:
        payload = Verifier(secret).verify(body, headers)
        assert payload["type"] == "webhook.test" and payload["data"]["webhookId"] == hook["id"]
    assert len(headers["webhook-signature"].split()) == len(secrets)

    newest = console.until("the delivery delivered", lambda: (d := deliveries_of(console, workspace, hook["id"])
                           ["deliveries"][0])["status"] == "delivered" and d)  # fmt: skip
    refreshed_until(console, f'tr[data-delivery-id="{newest["id"]}"] span.badge.ok')
    assert (newest["type"], newest["status"], newest["eventId"]) == ("webhook.test", "delivered", headers["webhook-id"])
    row = row_of(console, "data-delivery-id", newest["id"])
    assert "HTTP 200" in row.text and not row.find_elements(By.XPATH, ".//button[normalize-space()='Retry']")
    console.screenshot("webhooks-deliveries")
    console.axe("webhooks-deliveries")


def refreshed_until(console: Console, css: str) -> None:
    """The deliveries' Refresh clicked (once its last load is over) until ``css`` is on the page."""

    def shown() -> bool:
        if console.driver.find_elements(By.CSS_SELECTOR, css):
            return True
        if "Loading deliveries" not in console.text():
            console.click("button", "Refresh")
        return False

    console.until(css, shown)


def rotated_in_two_steps(console: Console, old: str) -> str:
    console.click("button", "Rotate secret")
    console.wait_text("The current one keeps signing for 24 hours only.")
    assert not console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=webhook-secret]")  # nothing done yet
    console.click("button", "Yes, rotate secret")
    console.wait_text("both sign every request for the next 24 hours")
    new = shown_secret(console)
    assert new != old
    console.screenshot("webhooks-rotated")
    console.axe("webhooks-rotated")
    console.click("button", "I have stored it, hide it")
    console.wait_gone("you will not see it again")
    return new


def edited_disabled_and_enabled(console: Console, workspace: str, hook: dict[str, Any]) -> None:
    console.click("button", f"Edit {hook['url']}")
    console.wait_role("heading", f"Edit the webhook to {hook['url']}")
    edit = console.driver.find_element(By.XPATH, "//form[.//h2[starts-with(normalize-space(), 'Edit the webhook')]]")
    everything = edit.find_element(By.XPATH, ".//label[contains(., 'All events')]/input")
    assert not everything.is_selected()
    everything.click()  # every event from now on
    description = edit.find_element(By.XPATH, ".//label[contains(., 'Description')]/input")
    description.clear()
    description.send_keys("CRM, every event")
    edit.find_element(By.XPATH, ".//button[normalize-space()='Save changes']").click()
    console.wait_text(f"The webhook to {hook['url']} is saved.")
    (saved,) = webhooks_of(console, workspace)
    assert (saved["events"], saved["description"]) == (["*"], "CRM, every event")
    assert "All events" in row_of(console, "data-webhook-id", hook["id"]).text

    console.click("button", f"Disable {hook['url']}")
    console.wait_text("is disabled: nothing is sent to it")
    assert webhooks_of(console, workspace)[0]["enabled"] is False
    assert "Disabled" in row_of(console, "data-webhook-id", hook["id"]).text
    assert not console.role("button", f"Send test to {hook['url']}").is_enabled()
    console.click("button", f"Enable {hook['url']}")
    console.wait_text(f"{hook['url']} is enabled.")
    assert webhooks_of(console, workspace)[0]["enabled"] is True


def failed_then_retried(console: Console, workspace: str, hook: dict[str, Any], receiver: Receiver) -> None:
    """A receiver answering 500 to every attempt: the delivery ends ``failed`` (the runner's short retry schedule);
    the filter shows it, Retry sends it again and, the receiver recovered, it is delivered."""
    receiver.status = 500
    sent = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/webhooks/{hook['id']}/test")
    assert sent.status == 202, sent.body
    delivery = sent.json()["deliveryId"]
    console.until("the delivery to fail", lambda: deliveries_of(console, workspace, hook["id"], "?status=failed")
                  ["deliveries"], timeout=60)  # fmt: skip
    receiver.status = 200
    Select(console.role("combobox", "Show")).select_by_visible_text("Failed")
    row = row_of(console, "data-delivery-id", delivery)
    assert "failed" in row.text and "HTTP 500" in row.text
    failed = deliveries_of(console, workspace, hook["id"], "?status=failed")["deliveries"]
    assert [d["id"] for d in failed] == [delivery]
    console.screenshot("webhooks-failed")
    console.axe("webhooks-failed")
    row.find_element(By.XPATH, ".//button[normalize-space()='Retry']").click()
    console.wait_text("The webhook.test delivery is being sent again.")

    def now() -> dict[str, Any]:
        return next(d for d in deliveries_of(console, workspace, hook["id"])["deliveries"] if d["id"] == delivery)

    console.until("the retried delivery delivered", lambda: now()["status"] == "delivered", timeout=30)
    # Every attempt, failed or not, carried the same webhook-id (the receiver's idempotency key) and the same body.
    attempts = [(h, b) for h, b in receiver.of_type("webhook.test") if h["webhook-id"] == now()["eventId"]]
    assert len(attempts) >= 2 and len({b for _, b in attempts}) == 1


def paged(console: Console, workspace: str, hook: dict[str, Any]) -> None:
    """More deliveries than a page: "Load more" appends the next page, in the API's order, nothing twice."""
    for _ in range(20):
        assert console.api(OWNER, "POST", f"/api/workspaces/{workspace}/webhooks/{hook['id']}/test").status == 202
    every: list[str] = []
    cursor = ""
    while True:
        page = deliveries_of(console, workspace, hook["id"], f"?limit=100{cursor}")
        every += [d["id"] for d in page["deliveries"]]
        if not page["nextCursor"]:
            break
        cursor = f"&cursor={page['nextCursor']}"
    assert len(every) > 20
    Select(console.role("combobox", "Show")).select_by_visible_text("All deliveries")

    def shown() -> list[str]:
        rows = console.driver.find_elements(By.CSS_SELECTOR, "tr[data-delivery-id]")
        return [r.get_attribute("data-delivery-id") for r in rows]

    console.click("button", "Refresh")
    console.until("the first page", lambda: len(shown()) == 20)
    console.click("button", "Load more deliveries")
    console.until("the next page", lambda: len(shown()) > 20)
    assert shown() == every[: len(shown())] and len(set(shown())) == len(shown())


def deleted_in_two_steps(console: Console, workspace: str, hook: dict[str, Any]) -> None:
    row = row_of(console, "data-webhook-id", hook["id"])
    row.find_element(By.XPATH, ".//button[normalize-space()='Delete']").click()
    console.wait_text("Nothing more is sent to it, and its deliveries are no longer listed.")
    assert len(webhooks_of(console, workspace)) == 1  # nothing happened at the first click
    console.click("button", "Yes, delete")
    console.wait_text(f"The webhook to {hook['url']} is deleted.")
    console.wait_text("This workspace has no webhook yet.")
    assert webhooks_of(console, workspace) == []


def member_sees_no_control(console: Console, workspace: str) -> None:
    invitation = {"email": MEMBER, "role": "member"}
    invited = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/invitations", invitation)
    assert invited.status == 201, invited.body
    token = parse_qs(urlsplit(invitation_link(console.service, MEMBER)).query)["token"][0]
    assert console.api(MEMBER, "POST", "/api/invitations/accept", {"token": token}).status in (200, 201)
    console.reset()
    console.sign_in(MEMBER)
    console.open(f"/w/{workspace}/")
    console.wait_role("navigation", "Workspace")
    assert not console.roles("link", "Webhooks", exact=True)  # not in a member's navigation
    console.open(f"/w/{workspace}/webhooks")
    console.wait_text("Webhooks are run by the workspace's owner and admins.")
    assert not console.roles("button", "Add webhook") and not console.roles("textbox", "URL")
    assert not console.roles("button", "Delete") and not console.roles("button", "Send test")
    console.screenshot("webhooks-member")
    console.axe("webhooks-member")
