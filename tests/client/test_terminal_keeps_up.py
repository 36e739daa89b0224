"""``workspace-client`` as a new user meets it (issue 41, "The terminal keeps up"): the sign-in link however pasted,
the README's steps, workspace settings, conversations, credits, refusals that say what to do, readable tables and
help, progress in a log, plurals, ``--workspace`` by slug, a mistyped folder. The command runs through ``main``
against a fake portal on ``httpx.MockTransport`` (the contract's JSON; the API itself has its own tests)."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from workspace_client import cli
from workspace_client._session import magic_link_token
from workspace_client.cli import main

from tests.support.fake_portal import Run, command_runner, use_fake_portal

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TOKEN = "Zq3-_x9AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
LINK = f"http://127.0.0.1:3003/?token={TOKEN}"
WS, SLUG, AGENT = "ws_01JTEST", "my-studio", "prj_01JTEST"
NOW = "2026-03-01T10:00:00.000Z"
JSON = dict[str, Any]
SH, GIT = shutil.which("sh") or "/bin/sh", shutil.which("git") or "git"


# --- the sign-in link, however pasted


def outbox_mail(directory: Path, link: str = LINK) -> Path:
    """A mail as the local runner's outbox writes it (core/identity/mail.py: indented JSON of the message)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "mail_01JTEST.json"
    message = {"to": "you@example.com", "subject": "Your sign-in link", "text": f"Sign in:\n\n{link}\n", "link": link}
    path.write_text(json.dumps(message, indent=2) + "\n")
    return path


@pytest.mark.parametrize(
    "pasted",
    [
        LINK,
        f'"{LINK}"',
        f'{LINK}"',  # the trailing quote a grep of the outbox's line kept
        f'  "link": "{LINK}"',  # the outbox's whole JSON line, as `grep '"link"'` prints it
        f'"link": "{LINK}",',
        json.dumps({"to": "you@example.com", "link": LINK}),
        f"<{LINK}>",
        TOKEN,
        f'"{TOKEN}"',
        f"http://127.0.0.1:3003/invitations?token={TOKEN}&x=1",
    ],
)
def test_the_sign_in_link_is_taken_however_it_was_pasted(pasted: str) -> None:
    assert magic_link_token(pasted) == TOKEN


def readme_link_command() -> str:
    """The command the README's sign-in step has a user run on the outbox (a comment line of its first block)."""
    lines = [line.lstrip("# ").strip() for line in README.read_text().splitlines() if ".local/outbox/*.json" in line]
    found = [line for line in lines if line.startswith(("python3", "grep", "jq", "sed"))]
    assert found, "the README's sign-in step names no command reading the outbox"
    return found[0].split("   ")[0]  # the command, without the words after it on the line


def test_the_readmes_sign_in_step_prints_the_bare_link(tmp_path: Path) -> None:
    outbox_mail(tmp_path / ".local" / "outbox")
    done = subprocess.run([SH, "-c", readme_link_command()], cwd=tmp_path, capture_output=True, text=True,
                          timeout=30, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == LINK + "\n"


def test_files_the_readmes_steps_create_are_ignored_by_git() -> None:
    text = README.read_text()
    created = re.findall(r"--agent \S+ \./(\S+)", text) + re.findall(r"--session-file (\S+?)[),\s]", text)
    created += re.findall(r"--output (\S+)", text)
    assert "my-guide" in created and any(name.endswith(".json") for name in created), created
    for name in created:
        path = name.rstrip("/") + ("/x" if "." not in name else "")
        done = subprocess.run([GIT, "check-ignore", "-q", path], cwd=ROOT, check=False)
        assert done.returncode == 0, f"{name} (the README's steps create it) is not ignored by git"


# --- a fake portal, and the command run against it


@dataclass
class Service:
    """The portal's answers, as the contract has them; ``calls`` the requests seen (method, path)."""

    store_conversations: bool = False
    threads: list[JSON] = field(default_factory=list)
    credits: int = 0
    calls: list[tuple[str, str]] = field(default_factory=list)
    bodies: list[JSON] = field(default_factory=list)
    history_query: dict[str, str] = field(default_factory=dict)

    def workspace(self) -> JSON:
        return {"id": WS, "name": "My studio", "slug": SLUG, "type": "team", "origin": "portal", "ownerId": "usr_ava",
                "createdAt": NOW, "storageConfig": {"type": "s3", "bucket": "b", "prefix": f"workspaces/{WS}/"},
                "wrapConfig": {}, "defaultWorkflowId": None, "defaultBrandId": "brd_1", "listed": False,
                "storeConversations": self.store_conversations, "conversationRetentionDays": None,
                "lowCreditsThreshold": None,
                "plan": {"name": "free", "maxObjectBytes": 25 * 2**20, "maxStorageBytes": 500 * 2**20},
                "updatedAt": NOW}  # fmt: skip

    def answer(self, request: httpx.Request) -> httpx.Response:  # noqa: PLR0912 - one branch a route
        path, method = request.url.path, request.method
        self.calls.append((method, path))
        agent = f"/api/workspaces/{WS}/agents/{AGENT}"
        if (method, path) == ("GET", "/api/workspaces"):
            return httpx.Response(200, json=[{k: v for k, v in self.workspace().items() if k in SUMMARY}
                                             | {"role": "owner", "memberCount": 2, "logoKey": ""}])  # fmt: skip
        if (method, path) == ("GET", f"/api/workspaces/{WS}"):
            return httpx.Response(200, json={"workspace": self.workspace()})
        if (method, path) == ("PATCH", f"/api/workspaces/{WS}"):
            body = json.loads(request.content)
            self.bodies.append(body)
            self.store_conversations = body.get("storeConversations", self.store_conversations)
            return httpx.Response(200, json={"workspace": self.workspace() | body})
        if (method, path) == ("GET", f"{agent}/conversations"):
            return httpx.Response(200, json={"threads": self.threads, "nextCursor": None})
        if (method, path) == ("GET", f"{agent}/conversations/thr_1"):
            turn = {"turnId": "turn_1", "prompt": "When are you open?", "reply": "From 7.", "credits": 1,
                    "createdAt": NOW}  # fmt: skip
            return httpx.Response(200, json={"turns": [turn]})
        if (method, path) == ("DELETE", f"{agent}/conversations"):
            return httpx.Response(200, json={"deleted": 1})
        if (method, path) == ("GET", "/api/credits/balance"):
            amounts = {"available": self.credits, "held": 0, "total": self.credits}
            return httpx.Response(200, json={"balance": amounts, "unit": "credits", "usdCents": amounts})
        if (method, path) == ("GET", "/api/credits/history"):
            self.history_query = dict(request.url.params)
            entry = {"id": "led_1", "accountId": "usr_ava", "amountCredits": -1, "refType": "llm", "refId": "turn_1",
                     "description": "Chat with Guide · offline", "createdAt": NOW}  # fmt: skip
            return httpx.Response(200, json={"entries": [entry], "total": 3, "limit": 1, "offset": 0})
        if (method, path) == ("GET", f"/api/workspaces/{WS}/audit"):
            entry = {"id": "aud_1", "action": "key.mint", "actorId": "usr_ava", "target": "key_1",
                     "requestId": "req-1", "createdAt": NOW, "count": None}  # fmt: skip
            return httpx.Response(200, json={"entries": [entry], "nextCursor": None})
        if (method, path) == ("GET", f"/api/workspaces/{WS}/members"):
            return httpx.Response(200, json=[MEMBER])
        if (method, path) == ("GET", f"{agent}/usage"):
            day = {"date": "2026-03-01", "requests": 4, "chatTurns": 3, "credits": 3, "rateLimited": 0}
            return httpx.Response(200, json={"days": [day]})
        if (method, path) == ("GET", f"/api/workspaces/{WS}/agents"):
            return httpx.Response(200, json={"agents": [AGENT_DOC], "nextCursor": None})
        if (method, path) == ("POST", f"{agent}/preview"):  # a preview is billed to the owner, as a turn is
            return httpx.Response(402, json={"error": "Insufficient credits", "code": "INSUFFICIENT_CREDITS"})
        return httpx.Response(404, json={"error": f"no route {method} {path}", "code": "NOT_FOUND"})


AGENT_DOC = {"id": AGENT, "slug": "guide", "name": "Guide", "brandId": "brd_1", "activeWorkflowId": "", "postCount": 0,
             "itemCount": 0, "createdAt": NOW, "updatedAt": NOW,
             "behaviour": {"instructions": "", "model": None, "temperature": 0.3, "maxReplyTokens": 512,
                           "knowledgeOnly": True, "fallback": ""}}  # fmt: skip
SUMMARY = {"id", "name", "slug", "type", "origin", "ownerId", "createdAt"}
MEMBER = {"id": "mem_1", "userId": "usr_ava", "workspaceId": WS, "role": "owner", "email": "ava@example.com",
          "name": "", "image": "", "createdAt": NOW}  # fmt: skip


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Service:
    fake = Service()
    use_fake_portal(monkeypatch, tmp_path, fake.answer)
    return fake


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], service: Service) -> Run:
    return command_runner(tmp_path, capsys)


# --- workspace settings, conversations, credits


def test_workspaces_update_sends_every_setting_given_and_only_those(run: Run, service: Service,
                                                                    tmp_path: Path) -> None:  # fmt: skip
    (tmp_path / "wrap.json").write_text('{"theme": "dark"}')
    status, out, _ = run("workspaces", "update", "--workspace", WS, "--store-conversations", "--retention-days", "90",
                         "--name", "Studio", "--no-listed", "--default-brand", "brd_2", "--default-workflow", "wf_1",
                         "--wrap-config", str(tmp_path / "wrap.json"))  # fmt: skip
    assert status == 0
    assert service.bodies == [{"name": "Studio", "listed": False, "storeConversations": True,
                               "conversationRetentionDays": 90, "defaultBrandId": "brd_2", "defaultWorkflowId": "wf_1",
                               "wrapConfig": {"theme": "dark"}}]  # fmt: skip
    assert "storeConversations\ttrue" in out
    status, _, _ = run("workspaces", "update", "--workspace", WS, "--keep-conversations")
    assert status == 0 and service.bodies[-1] == {"conversationRetentionDays": None}  # cleared: sent as null
    status, _, err = run("workspaces", "update", "--workspace", WS)
    assert status == 2 and "nothing to change" in err


def test_an_export_that_finds_nothing_says_conversations_are_not_stored(run: Run, tmp_path: Path) -> None:
    status, _, err = run("conversations", "export", "--workspace", WS, "--agent", AGENT, "--output",
                         str(tmp_path / "out.jsonl"))  # fmt: skip
    assert status == 0
    assert "0 threads, 0 turns exported, done" in err
    assert "does not store them" in err and "workspaces update --workspace my-studio --store-conversations" in err


def test_an_empty_list_where_conversations_are_stored_says_none_match(run: Run, service: Service) -> None:
    service.store_conversations = True
    status, _, err = run("conversations", "list", AGENT, "--workspace", WS, "--client", "visitor-1")
    assert status == 0 and "no stored conversation matches --client visitor-1" in err


def test_conversations_list_show_and_erase(run: Run, service: Service) -> None:
    service.store_conversations = True
    service.threads = [{"threadKey": "thr_1", "client": "visitor-1", "turns": 1, "startedAt": NOW, "lastAt": NOW}]
    status, out, _ = run("conversations", "list", AGENT, "--workspace", WS)
    assert status == 0 and out == f"{NOW}\t1 turn\tvisitor-1\tthr_1\n"  # "1 turn", never "1 turns"
    status, out, _ = run("conversations", "show", AGENT, "thr_1", "--client", "visitor-1", "--workspace", WS)
    assert status == 0 and "visitor: When are you open?" in out and "agent:   From 7." in out and "(1 credit)" in out
    status, out, _ = run("conversations", "erase", AGENT, "--client", "visitor-1", "--workspace", WS)
    assert status == 0 and out == "erased 1 turn of visitor-1\n"
    assert ("DELETE", f"/api/workspaces/{WS}/agents/{AGENT}/conversations") in service.calls


def test_credits_balance_and_history_with_its_filters(run: Run, service: Service) -> None:
    status, out, err = run("credits", "balance")
    assert status == 0 and out.startswith("0 credits available") and "no credits left" in err
    status, out, err = run("credits", "history", "--type", "llm", "--limit", "1", "--offset", "0")
    assert status == 0 and service.history_query == {"limit": "1", "offset": "0", "refType": "llm"}
    header, row = out.splitlines()
    assert header.split() == ["time", "credits", "type", "reference", "description"]
    assert row.split()[:4] == [NOW, "-1", "llm", "turn_1"]
    assert "--offset 1 for the next ones" in err


def test_insufficient_credits_says_what_to_do(run: Run) -> None:
    status, _, err = run("agents", "try", "guide", "When are you open?", "--workspace", WS)
    assert status == 1 and "INSUFFICIENT_CREDITS" in err
    assert "credits balance" in err and "grant --email" in err


# --- tables, help, progress, plurals


def test_usage_prints_its_column_names(run: Run) -> None:
    status, out, _ = run("usage", "--workspace", WS, "--agent", AGENT, "--days", "1")
    assert status == 0
    header, row = out.splitlines()
    assert header.split() == ["date", "requests", "chatTurns", "credits", "rateLimited"]
    assert row.split() == ["2026-03-01", "4", "3", "3", "0"]


def test_audit_names_people_by_address_with_one_members_read(run: Run, service: Service) -> None:
    status, out, _ = run("audit", "--workspace", WS)
    assert status == 0 and "ava@example.com" in out and "usr_ava" not in out
    assert out.splitlines()[0].split() == ["time", "action", "by", "target", "request"]
    assert service.calls.count(("GET", f"/api/workspaces/{WS}/members")) == 1


def test_members_list_has_no_empty_column(run: Run) -> None:
    status, out, _ = run("members", "list", "--workspace", WS)
    assert status == 0 and out == f"usr_ava\towner\tava@example.com\t{NOW}\n"
    assert "\t\t" not in out


def every_parser(parser: argparse.ArgumentParser, name: str = "workspace-client") -> Iterator[tuple[str, Any]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from every_parser(child, f"{name} {sub}")


def test_no_help_shows_docstring_markup() -> None:
    for name, parser in every_parser(cli.parser()):
        text = parser.format_help()
        assert "``" not in text, f"{name} --help shows ``markup``"


def test_export_progress_in_a_log_is_plain_lines(service: Service, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    service.store_conversations = True
    service.threads = [{"threadKey": "thr_1", "client": "visitor-1", "turns": 1, "startedAt": NOW, "lastAt": NOW}]
    status = main(["conversations", "export", "--workspace", WS, "--agent", AGENT, "--output",
                   str(tmp_path / "out.jsonl"), "--session-file", str(tmp_path / "session.json")])  # fmt: skip
    err = capsys.readouterr().err  # captured: not a terminal, as a log or a CI job is
    assert status == 0 and "\r" not in err
    assert err.splitlines() == ["workspace-client: 1 thread, 1 turn exported",
                                "workspace-client: 1 thread, 1 turn exported, done"]  # fmt: skip


# --- --workspace by slug, a mistyped folder


def test_workspace_is_taken_by_the_slug_workspaces_list_prints(run: Run, service: Service) -> None:
    status, out, _ = run("workspaces", "list")
    assert status == 0 and SLUG in out.split("\t")
    status, out, _ = run("members", "list", "--workspace", SLUG)
    assert status == 0 and out.startswith("usr_ava\t")
    assert ("GET", f"/api/workspaces/{WS}/members") in service.calls
    status, _, err = run("members", "list", "--workspace", "no-such-studio")
    assert status == 1 and "no workspace no-such-studio" in err and f"{SLUG} ({WS})" in err


def test_a_mistyped_bundle_folder_says_no_such_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["publish", str(tmp_path / "my-gudie"), "--workspace", WS, "--dry-run"])
    err = capsys.readouterr().err
    assert status == 1 and "my-gudie: no such folder" in err and "agent.json" not in err


def test_counts_of_one_are_singular() -> None:
    from workspace_client import cli_agents, cli_conversations

    assert cli_agents._shown("instructions", "x") == "1 character: x"
    assert cli_conversations.plural(1, "thread") == "1 thread" and cli_conversations.plural(0, "turn") == "0 turns"
