"""How an agent answers, from the terminal (issue 39): ``workspace-client models``, a bundle's ``behaviour`` through
publish and export, ``agents update`` sending only the fields given, ``knowledge search`` and ``agents try`` (the
preview streamed, then its passages with scores and the credits charged) against the runner, whose two offline
models cost 1 and 3 credits a turn. And, without a runner, that ``agents try`` prints the reply as it arrives."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from workspace_client import Portal
from workspace_client.bundle import load_bundle
from workspace_client.bundle.session import Session, save
from workspace_client.cli import main, parser
from workspace_client.cli_agents import _try

from tests.support.bundles import signed_in, started_service_without_demo
from tests.support.load import ops
from tests.support.runner import LocalService

FAQ = (
    "# Counter notes\n\nOat milk? Yes, every day, at no extra cost.\n\n"
    "Opening hours: every day from 7 until 18, Sundays from 8.\n"
)
BEHAVIOUR = {
    "instructions": "Warm and brief, like a barista who knows the regulars.\n- Two sentences at most.",
    "model": "offline-plus",
    "temperature": 0.5,
    "fallback": "Ask whoever is on the bar today.",
}


def voiced_bundle(root: Path, behaviour: dict[str, Any] | None = None) -> Path:
    (root / "notes").mkdir(parents=True)
    agent = {"slug": "voiced", "name": "Voiced Barista", "behaviour": BEHAVIOUR if behaviour is None else behaviour}
    (root / "agent.json").write_text(json.dumps(agent))
    (root / "items.json").write_text(json.dumps([{"name": "Counter notes", "kind": "text", "file": "notes/faq.md"}]))
    (root / "notes" / "faq.md").write_text(FAQ)
    return root


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service_without_demo(tmp_path_factory.mktemp("behaviour-cli-state"))


class Terminal:
    """``workspace-client`` run in-process with one session file; each run's exit status, stdout and stderr."""

    def __init__(self, service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        email = f"cli-behaviour-{uuid.uuid4().hex[:12]}@example.com"
        self.portal = signed_in(service, email)
        assert ops(service, "grant", "--email", email, "--credits", "50", "--ref-id", "try")["applied"] is True
        self.workspace = self.portal.create_workspace(name="Voices").workspace.id
        self.path = tmp_path / "session.json"
        save(self.path, Session(service.portal, self.portal.session_cookie, None))
        self.capsys = capsys

    def __call__(self, *argv: str | Path, status: int = 0) -> tuple[str, str]:
        self.capsys.readouterr()
        code = main([*map(str, argv), "--session-file", str(self.path)])
        out, err = self.capsys.readouterr()
        assert code == status, (code, out, err)
        return out, err

    def agent(self, slug: str) -> dict[str, Any]:
        agent = next(a for a in self.portal.list_agents(self.workspace).agents if a.slug == slug)
        return agent.model_dump(mode="json", by_alias=True)


@pytest.fixture
def terminal(service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Terminal]:
    made = Terminal(service, tmp_path, capsys)
    yield made
    made.portal.close()


@pytest.mark.e2e
def test_models_lists_each_model_with_its_price(terminal: Terminal) -> None:
    out, _ = terminal("models")
    lines = [line.split("\t") for line in out.splitlines()]
    assert [line[:2] for line in lines] == [["offline", "1 credit a turn"], ["offline-plus", "3 credits a turn"]]
    assert lines[0][-1] == "default" and lines[1][-1] != "default"
    listed = json.loads(terminal("models", "--json")[0])
    assert [(m["id"], m["creditsPerTurn"], m["default"]) for m in listed] == [("offline", 1, True),
                                                                               ("offline-plus", 3, False)]  # fmt: skip


@pytest.mark.e2e
def test_a_bundles_behaviour_is_published_exported_and_published_back_unchanged(
    terminal: Terminal, tmp_path: Path
) -> None:
    bundle = voiced_bundle(tmp_path / "bundle")
    in_it = ["--workspace", terminal.workspace]
    out, _ = terminal("publish", bundle, *in_it, "--no-progress")
    assert out.startswith("create agent voiced (Voiced Barista)\n")
    held = terminal.agent("voiced")["behaviour"]
    assert held == BEHAVIOUR | {"maxReplyTokens": 512, "knowledgeOnly": True}  # the rest: the service's defaults
    assert terminal("publish", bundle, *in_it)[0] == "agent voiced: up to date, nothing to do\n"

    terminal("export", *in_it, "--agent", "voiced", tmp_path / "copy", "--no-progress")
    written = json.loads((tmp_path / "copy" / "agent.json").read_text())
    assert written["behaviour"] == held  # every field, defaults included
    exported = load_bundle(tmp_path / "copy").agent.behaviour
    every = {"instructions", "model", "temperature", "max_reply_tokens", "knowledge_only", "fallback"}
    assert exported is not None and set(exported.given()) == every
    assert terminal("publish", tmp_path / "copy", *in_it)[0] == "agent voiced: up to date, nothing to do\n"

    # The export published as another agent answers as this one does: every field the same.
    written["slug"], written["name"] = "voiced-copy", "Voiced Copy"
    (tmp_path / "copy" / "agent.json").write_text(json.dumps(written))
    terminal("publish", tmp_path / "copy", *in_it, "--no-progress")
    assert terminal.agent("voiced-copy")["behaviour"] == held


@pytest.mark.e2e
def test_agents_update_sends_only_the_fields_given_and_reset_restores_a_default(
    terminal: Terminal, tmp_path: Path
) -> None:
    bundle = voiced_bundle(tmp_path / "bundle")
    in_it = ["--workspace", terminal.workspace]
    terminal("publish", bundle, *in_it, "--no-progress")
    agent_id = terminal.agent("voiced")["id"]
    voice = tmp_path / "voice.txt"
    voice.write_text("Cheerful.\nAlways mention the oat milk.\n")

    out, _ = terminal("agents", "update", "voiced", *in_it, "--instructions-file", voice, "--max-reply-tokens", "100",
                      "--no-knowledge-only", "--reset", "model")  # fmt: skip
    lines = dict(line.split("\t", 1) for line in out.splitlines()[1:])
    assert out.splitlines()[0] == f"{agent_id}\tvoiced\tVoiced Barista"
    assert lines == {"instructions": "38 characters: Cheerful.", "model": "(the deployment's default)",
                     "temperature": "0.5", "maxReplyTokens": "100", "knowledgeOnly": "false",
                     "fallback": BEHAVIOUR["fallback"]}  # fmt: skip
    held = terminal.agent("voiced")["behaviour"]
    assert held == {"instructions": "Cheerful.\nAlways mention the oat milk.", "model": None, "temperature": 0.5,
                    "maxReplyTokens": 100, "knowledgeOnly": False, "fallback": BEHAVIOUR["fallback"]}  # fmt: skip

    # By id, --json; the fields not given (instructions, maxReplyTokens, ...) stay as they are.
    updated = json.loads(terminal("agents", "update", agent_id, *in_it, "--temperature", "0.9", "--json")[0])
    assert updated["behaviour"] == held | {"temperature": 0.9}
    reset = json.loads(terminal("agents", "update", "voiced", *in_it, "--reset", "temperature", "knowledgeOnly",
                                "--json")[0])  # fmt: skip
    assert reset["behaviour"] == held | {"temperature": 0.3, "knowledgeOnly": True}

    # The bundle names three of the fields the update changed: publish puts back those, and only those.
    out, _ = terminal("publish", bundle, *in_it, "--dry-run")
    assert out.splitlines()[0] == "update agent voiced: behaviour.instructions, behaviour.model, behaviour.temperature"

    refused = terminal("agents", "update", "voiced", *in_it, "--temperature", "1.5", status=1)[1]
    assert "behaviour.temperature" in refused and "(VALIDATION_ERROR, HTTP 400)" in refused
    assert "(VALIDATION_ERROR, HTTP 400)" in terminal("agents", "update", "voiced", *in_it, "--model", "gpt-9",
                                                      status=1)[1]  # fmt: skip
    assert "nothing to change" in terminal("agents", "update", "voiced", *in_it, status=2)[1]
    assert "--reset fallback and a value" in terminal("agents", "update", "voiced", *in_it, "--fallback", "x",
                                                      "--reset", "fallback", status=2)[1]  # fmt: skip
    assert "no agent nobody in workspace" in terminal("agents", "update", "nobody", *in_it, "--temperature", "0.4",
                                                      status=1)[1]  # fmt: skip
    assert terminal.agent("voiced")["behaviour"] == reset["behaviour"]  # the refusals changed nothing


@pytest.mark.e2e
def test_knowledge_search_and_agents_try_show_the_passages_behind_the_reply(terminal: Terminal, tmp_path: Path) -> None:
    in_it = ["--workspace", terminal.workspace]
    terminal("publish", voiced_bundle(tmp_path / "bundle"), *in_it, "--no-progress")  # waits for the notes' reading
    item_id = terminal.portal.list_items(terminal.workspace, terminal.agent("voiced")["id"]).items[0].id

    out, _ = terminal("knowledge", "search", "voiced", "oat milk", *in_it, "--limit", "3")
    score, source, _where, excerpt = out.splitlines()[0].split("\t")
    assert float(score) > 0 and source == f"Counter notes (item {item_id})" and "Oat milk? Yes" in excerpt
    found = json.loads(terminal("knowledge", "search", "voiced", "oat milk", *in_it, "--json")[0])
    assert found[0]["source"]["itemId"] == item_id and "Oat milk" in found[0]["text"]
    before = terminal.portal.get_balance().balance.available

    out, _ = terminal("agents", "try", "voiced", "Do you have oat milk?", *in_it)
    reply, rest = out.split("\n\npassages considered: ")
    assert "Oat milk" in reply or "oat milk" in reply
    lines = rest.splitlines()
    assert lines[0].endswith("given to the model)") and any(
        line.startswith("used\t") and f"Counter notes (item {item_id})" in line for line in lines[1:]
    )
    assert lines[-1].startswith("charged 3 credits")  # the agent's model, offline-plus
    # An override for this question only: the default model, 1 credit; nothing saved.
    out, _ = terminal("agents", "try", "voiced", "Do you have oat milk?", *in_it, "--model", "offline")
    assert out.splitlines()[-1].startswith("charged 1 credit ")
    assert terminal.agent("voiced")["behaviour"]["model"] == "offline-plus"
    assert terminal.portal.get_balance().balance.available == before - 4

    # The fallback, word for word, when nothing in the material answers; --json: the stream's lines as sent.
    events = [json.loads(line) for line in terminal("agents", "try", "voiced", "Who won the 1998 chess olympiad?",
                                                   *in_it, "--json")[0].splitlines()]  # fmt: skip
    assert [e["type"] for e in events][:2] == ["start", "retrieval"] and events[-1]["type"] == "done"
    assert "".join(e["text"] for e in events if e["type"] == "delta") == BEHAVIOUR["fallback"]


# --- without a runner: the reply is printed as it arrives


def test_agents_try_prints_each_part_of_the_reply_before_the_rest_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's stream is produced only as the client reads it: its second delta is made after checking that
    the first one is already on stdout, so a client that buffered the reply fails here."""
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    seen_before_second: list[str] = []
    source = {"itemId": "itm_1", "postId": None, "answerId": None, "name": "Notes", "r2Key": "k"}
    passage = {"text": "Oat milk? Yes.", "where": "", "score": 2.5, "used": True, "source": source}

    class Stream(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield json.dumps({"type": "start", "turnId": "t_1", "threadKey": "thr_1"}).encode() + b"\n"
            yield json.dumps({"type": "retrieval", "passages": [passage]}).encode() + b"\n"
            yield json.dumps({"type": "delta", "text": "Oat milk, "}).encode() + b"\n"
            seen_before_second.append(out.getvalue())
            yield json.dumps({"type": "delta", "text": "every day."}).encode() + b"\n"
            usage = {"inputTokens": 10, "outputTokens": 4, "credits": 3}
            yield json.dumps({"type": "done", "usage": usage}).encode() + b"\n"

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/agents"):
            agent = {"id": "prj_1", "slug": "voiced", "name": "Voiced", "brandId": "b", "activeWorkflowId": "w",
                     "postCount": 0, "itemCount": 1, "behaviour": BEHAVIOUR | {"maxReplyTokens": 512,
                     "knowledgeOnly": True}, "createdAt": "x", "updatedAt": "x"}  # fmt: skip
            return httpx.Response(200, json={"agents": [agent], "nextCursor": None})
        assert request.url.path == "/api/workspaces/ws_1/agents/prj_1/preview"
        assert json.loads(request.content) == {"prompt": "Oat milk?", "behaviour": {"model": "offline"}}
        return httpx.Response(200, stream=Stream(), headers={"content-type": "application/x-ndjson"})

    portal = Portal("https://p.test", token="jwt", transport=httpx.MockTransport(answer))
    args = parser().parse_args(["agents", "try", "voiced", "Oat milk?", "--workspace", "ws_1", "--model", "offline"])
    assert _try(portal, args) == 0
    assert seen_before_second == ["Oat milk, "]
    assert out.getvalue().splitlines() == [
        "Oat milk, every day.", "", "passages considered: 1 (1 given to the model)",
        "used\t2.500\tNotes (item itm_1)\t\tOat milk? Yes.", "charged 3 credits (to the workspace's owner; not stored "
        "as a conversation)"]  # fmt: skip


def test_the_async_portal_previews_too() -> None:
    """``AsyncPortal.preview``: the same events, the retrieval's passages kept on the events after it."""
    import asyncio

    from workspace_client import AsyncPortal

    lines = [{"type": "start", "turnId": "t_1", "threadKey": "thr_1"},
             {"type": "retrieval", "passages": []}, {"type": "delta", "text": "Hello"},
             {"type": "done", "usage": {"inputTokens": 1, "outputTokens": 1, "credits": 1}}]  # fmt: skip

    def answer(request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content) == {"prompt": "Hi", "section": "about"}
        return httpx.Response(200, content=b"".join(json.dumps(line).encode() + b"\n" for line in lines))

    async def run() -> list[tuple[str, str, int | None]]:
        async with AsyncPortal("https://p.test", token="jwt", transport=httpx.MockTransport(answer)) as portal:
            return [(e.type, e.text, e.credits) async for e in portal.preview("ws_1", "prj_1", "Hi", section="about")]

    assert asyncio.run(run()) == [("start", "", None), ("retrieval", "", None), ("delta", "Hello", None),
                                  ("done", "", 1)]  # fmt: skip
