"""``workspace-client webhooks list|add|rm|rotate|test|deliveries|retry`` (issue 42) through ``main`` against a fake
portal on ``httpx.MockTransport`` that answers as authoring.md's "Webhooks: events sent to the owner's systems"
says (its JSON, its statuses, a page of deliveries with ``nextCursor``); the API itself has its own tests. What is
checked: the requests the commands send (bodies, query, paths), what they print (a secret alone on stdout, said
once on stderr), the tables, paging, and a refusal in the service's words."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from tests.support.fake_portal import Run, command_runner, use_fake_portal

WS, NOW = "ws_01JTEST", "2026-03-01T10:00:00.000Z"
BASE = f"/api/workspaces/{WS}/webhooks"
JSON = dict[str, Any]


def delivery(n: int, status: str) -> JSON:
    return {"id": f"dlv_{n:02d}", "eventId": f"evt_{n:02d}", "type": "feedback.created", "status": status,
            "attempts": 1 if status == "delivered" else 8, "lastStatus": 200 if status == "delivered" else 500,
            "lastError": None if status == "delivered" else "HTTP 500", "nextAttemptAt": None,
            "createdAt": f"2026-03-01T10:00:{n:02d}.000Z"}  # fmt: skip


@dataclass
class Service:
    """The portal's webhooks for one workspace; ``calls`` the requests seen (method, path, query, body)."""

    webhooks: dict[str, JSON] = field(default_factory=dict)
    deliveries: list[JSON] = field(default_factory=lambda: [delivery(n, "failed" if n % 3 == 0 else "delivered")
                                                            for n in range(7, 0, -1)])  # fmt: skip
    calls: list[tuple[str, str, dict[str, list[str]], Any]] = field(default_factory=list)
    secrets: int = 0

    def secret(self) -> str:
        self.secrets += 1
        return f"whsec_c2VjcmV0LW51bWJlci0{self.secrets}"

    def answer(self, request: httpx.Request) -> httpx.Response:
        method, path = request.method, request.url.path
        query = parse_qs(request.url.query.decode())
        body: Any = json.loads(request.content) if request.content else None
        self.calls.append((method, path, query, body))
        parts = path.removeprefix(BASE).strip("/").split("/") if path.startswith(BASE) else None
        if parts is None:
            return httpx.Response(404, json={"error": f"no route {method} {path}", "code": "NOT_FOUND"})
        if parts == [""]:
            if method == "GET":
                return httpx.Response(200, json={"webhooks": list(self.webhooks.values())})
            if not str(body["url"]).startswith("https://"):
                return httpx.Response(400, json={"error": "url: a webhook's URL is https://", "code":
                                                 "INVALID_WEBHOOK_URL"})  # fmt: skip
            hook = {"id": f"whk_{len(self.webhooks) + 1:02d}", "url": body["url"], "events": body["events"],
                    "description": body.get("description", ""), "enabled": True, "disabledReason": None,
                    "createdAt": NOW, "updatedAt": NOW}  # fmt: skip
            self.webhooks[hook["id"]] = hook
            return httpx.Response(201, json={"webhook": hook, "secret": self.secret()})
        hook_id, rest = parts[0], parts[1:]
        if hook_id not in self.webhooks:
            return httpx.Response(404, json={"error": "no such webhook", "code": "NOT_FOUND"})
        if (method, rest) == ("DELETE", []):
            del self.webhooks[hook_id]
            return httpx.Response(200, json={})
        if (method, rest) == ("POST", ["rotate"]):
            return httpx.Response(200, json={"secret": self.secret()})
        if (method, rest) == ("POST", ["test"]):
            return httpx.Response(202, json={"deliveryId": "dlv_test"})
        if (method, rest) == ("GET", ["deliveries"]):
            return self.page(query)
        if method == "POST" and len(rest) == 3 and rest[0] == "deliveries" and rest[2] == "retry":
            return httpx.Response(202, json={})
        return httpx.Response(404, json={"error": f"no route {method} {path}", "code": "NOT_FOUND"})

    def page(self, query: dict[str, list[str]]) -> httpx.Response:
        """Newest first; ``cursor`` is the index to start at (opaque to the client), ``status`` filters."""
        chosen = [d for d in self.deliveries if d["status"] in query.get("status", [d["status"]])]
        start, limit = int(query.get("cursor", ["0"])[0]), int(query.get("limit", ["20"])[0])
        rest = chosen[start : start + limit]
        more = start + limit < len(chosen)
        return httpx.Response(200, json={"deliveries": rest, "nextCursor": str(start + limit) if more else None})


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Service:
    fake = Service()
    use_fake_portal(monkeypatch, tmp_path, fake.answer)
    return fake


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], service: Service) -> Run:
    return command_runner(tmp_path, capsys)


def writes(service: Service) -> list[tuple[str, str, Any]]:
    return [(method, path, body) for method, path, _, body in service.calls if method != "GET"]


def test_add_prints_the_secret_alone_once_and_sends_every_event_by_default(run: Run, service: Service) -> None:
    status, out, err = run("webhooks", "add", "https://crm.example.com/hook", "--workspace", WS)
    assert status == 0, err
    assert out == "whsec_c2VjcmV0LW51bWJlci01\n"  # alone on stdout: $(webhooks add …) is the secret
    assert writes(service) == [("POST", BASE, {"url": "https://crm.example.com/hook", "events": ["*"]})]
    assert "added whk_01 for * to https://crm.example.com/hook" in err
    assert "shown this once" in err and "will not be shown again" in err
    # The list never shows it again: the service does not send it, and nothing is kept by the command.
    status, out, err = run("webhooks", "list", "--workspace", WS)
    assert status == 0, err
    assert "whsec_" not in out


def test_add_sends_each_event_given_and_the_description(run: Run, service: Service) -> None:
    status, out, err = run("webhooks", "add", "https://crm.example.com/hook", "--workspace", WS, "--event",
                           "feedback.created", "--event", "credits.low", "--description", "CRM")  # fmt: skip
    assert status == 0, err
    assert writes(service)[0][2] == {"url": "https://crm.example.com/hook",
                                     "events": ["feedback.created", "credits.low"], "description": "CRM"}  # fmt: skip
    status, out, err = run("webhooks", "add", "https://x.example.com/", "--workspace", WS, "--json")
    assert status == 0, err
    answer = json.loads(out)
    assert answer["webhook"]["id"] == "whk_02" and answer["secret"].startswith("whsec_")


def test_list_is_a_table_of_id_state_url_events(run: Run, service: Service) -> None:
    assert run("webhooks", "add", "https://a.example.com/h", "--workspace", WS, "--event", "member.joined",
               "--event", "member.removed", "--description", "people")[0] == 0  # fmt: skip
    assert run("webhooks", "add", "https://b.example.com/h", "--workspace", WS)[0] == 0
    service.webhooks["whk_02"] |= {"enabled": False, "disabledReason": "gone"}
    status, out, err = run("webhooks", "list", "--workspace", WS)
    assert status == 0, err
    head, first, second = out.splitlines()
    assert head.split() == ["id", "state", "url", "events", "description"]
    assert first.split() == ["whk_01", "enabled", "https://a.example.com/h", "member.joined,member.removed", "people"]
    assert second.split()[:4] == ["whk_02", "disabled", "(gone)", "https://b.example.com/h"]
    status, out, err = run("webhooks", "list", "--workspace", WS, "--json")
    assert [w["id"] for w in json.loads(out)] == ["whk_01", "whk_02"]


def test_an_empty_list_says_how_to_add_one(run: Run) -> None:
    status, out, err = run("webhooks", "list", "--workspace", WS)
    assert (status, out) == (0, "")
    assert "webhooks add URL" in err


def test_rotate_prints_the_new_secret_and_says_both_sign_for_24_hours(run: Run, service: Service) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    status, out, err = run("webhooks", "rotate", "whk_01", "--workspace", WS)
    assert status == 0, err
    assert out == "whsec_c2VjcmV0LW51bWJlci02\n"
    assert "both sign every delivery for the next 24 hours" in err
    assert writes(service)[-1] == ("POST", f"{BASE}/whk_01/rotate", None)


def test_test_sends_a_test_event_and_prints_its_delivery(run: Run, service: Service) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    status, out, err = run("webhooks", "test", "whk_01", "--workspace", WS)
    assert status == 0, err
    assert out == "dlv_test\n" and "webhook.test sent" in err
    assert writes(service)[-1] == ("POST", f"{BASE}/whk_01/test", None)


def test_rm_asks_nothing_and_removes_by_id(run: Run, service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    monkeypatch.setattr("sys.stdin", None)  # a prompt would fail on reading it
    status, out, err = run("webhooks", "rm", "whk_01", "--workspace", WS)
    assert (status, out) == (0, "removed whk_01\n"), err
    assert writes(service)[-1] == ("DELETE", f"{BASE}/whk_01", None) and not service.webhooks
    status, out, err = run("webhooks", "rm", "whk_01", "--workspace", WS)
    assert status == 1 and "no such webhook (NOT_FOUND, HTTP 404)" in err


def test_deliveries_a_page_then_the_next_with_the_cursor_printed(run: Run, service: Service) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    status, out, err = run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--limit", "3")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "createdAt", "type", "status", "attempts", "lastStatus", "nextAttemptAt",
                                "lastError"]  # fmt: skip
    assert [line.split()[0] for line in lines[1:]] == ["dlv_07", "dlv_06", "dlv_05"]  # newest first, as sent
    assert "more: --cursor 3" in err
    status, out, err = run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--limit", "3", "--cursor", "6")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["dlv_01"] and "more" not in err
    asked = [q for method, path, q, _ in service.calls if path.endswith("/deliveries")]
    assert asked == [{"limit": ["3"]}, {"limit": ["3"], "cursor": ["6"]}]


def test_deliveries_all_pages_and_by_status(run: Run, service: Service) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    status, out, err = run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--limit", "2", "--all")
    assert status == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == [f"dlv_{n:02d}" for n in range(7, 0, -1)]
    assert "more" not in err
    status, out, err = run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--status", "failed", "--json")
    answer = json.loads(out)
    assert [d["id"] for d in answer["deliveries"]] == ["dlv_06", "dlv_03"] and answer["nextCursor"] is None
    assert service.calls[-1][2] == {"limit": ["20"], "status": ["failed"]}
    status, out, err = run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--status", "pending")
    assert (status, out) == (0, "") and "no pending deliveries" in err
    calls = len(service.calls)
    with pytest.raises(SystemExit) as usage:  # the contract's statuses only: a usage error, nothing sent
        run("webhooks", "deliveries", "whk_01", "--workspace", WS, "--status", "lost")
    assert usage.value.code == 2 and len(service.calls) == calls


def test_retry_sends_a_delivery_again(run: Run, service: Service) -> None:
    run("webhooks", "add", "https://a.example.com/h", "--workspace", WS)
    status, out, err = run("webhooks", "retry", "whk_01", "dlv_06", "--workspace", WS)
    assert status == 0, err
    assert out.startswith("retrying dlv_06")
    assert writes(service)[-1] == ("POST", f"{BASE}/whk_01/deliveries/dlv_06/retry", None)


def test_a_refused_url_is_said_in_the_services_words(run: Run, service: Service) -> None:
    status, out, err = run("webhooks", "add", "http://crm.example.com/hook", "--workspace", WS)
    assert (status, out) == (1, "")
    assert "the service refused: url: a webhook's URL is https:// (INVALID_WEBHOOK_URL, HTTP 400)" in err
    assert not service.webhooks
