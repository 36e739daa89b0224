"""A chat turn through its handler (moto, the offline model): start → delta… → done, shaped by section, brand
and history, and keep-alive lines while the model is silent."""

from __future__ import annotations

import math

import pytest

from core.brands.records import BrandRecord
from core.brands.write_store import BrandStore
from core.chat.model import Message
from core.platform import providers as platform_providers
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.platform.transactions import Also
from tests.support.chat import (
    CHAT,
    ITEM,
    PROMPT,
    RecordingModel,
    chat,
    grant,
    llm_charges,
    streamed,
)
from tests.support.lambdas import (
    invoke_streamed,
    sample_event,
)
from tests.support.seed import Seeder


def test_a_turn_streams_start_deltas_and_done(funded) -> None:
    result = chat(threadKey="thr_visit-1")
    lines, reply = streamed(result)
    start, done = lines[0], lines[-1]
    assert start == {"type": "start", "threadKey": "thr_visit-1", "turnId": start["turnId"]}
    assert len(lines) > 3  # the reply arrives in several deltas, not in one piece
    assert reply.startswith("Hi, I'm Helper, Acme's assistant.")
    assert f"“{ITEM}”" in reply and "Linen summer shirt" not in reply
    assert done["usage"]["credits"] == 1
    assert done["usage"]["inputTokens"] > 0
    assert done["usage"]["outputTokens"] == math.ceil(len(reply) / 4)
    assert result.header("RateLimit-Limit") == "600" and result.header("RateLimit-Remaining") == "599"


def test_the_sample_event_replays_as_it_is(funded) -> None:
    lines, reply = streamed(invoke_streamed(CHAT, sample_event(CHAT)))
    assert lines[0]["threadKey"] == "thr_sample"
    assert "Acme" in reply


def test_without_a_thread_key_each_turn_gets_a_new_thread_and_turn(funded) -> None:
    first, _ = streamed(chat())
    second, _ = streamed(chat())
    assert first[0]["threadKey"].startswith("thr_") and second[0]["threadKey"].startswith("thr_")
    assert first[0]["threadKey"] != second[0]["threadKey"]
    assert first[0]["turnId"] != second[0]["turnId"]


def test_turn_ids_differ_within_one_thread(funded) -> None:
    turns = [streamed(chat(threadKey="thr_same"))[0][0] for _ in range(3)]
    assert {t["threadKey"] for t in turns} == {"thr_same"}
    assert len({t["turnId"] for t in turns}) == 3


def test_the_section_shapes_the_reply(tenant, seed: Seeder, aws) -> None:
    grant(aws, tenant.ws.owner_id, 5)
    site = {
        "pages": [{"id": "visit", "title": "Visit", "sections": ["visit-main"]}],
        "sections": [{"id": "visit-main", "type": "text", "body": "Find us on Harbour Street 12. Walk-ins welcome."}],
    }
    agent = seed.agent(tenant.ws, slug="guide", site=site)
    _, reply = streamed(chat(agent_id=agent.id, prompt="Where is your street address?", section="visit"))
    assert "Harbour Street 12" in reply


def test_the_largest_valid_request_is_served(funded) -> None:
    history = [{"content": "y" * 640} for _ in range(50)]  # 50 entries, 32,000 characters
    lines, _ = streamed(
        chat({
            "prompt": "  " + "rain jacket " * 333 + "why  ",  # 4,000 characters once trimmed
            "client": "c" * 128,
            "threadKey": "T" * 120 + "_.:-0aZ9",
            "history": history,
            "section": "s" * 128,
        })
    )  # fmt: skip
    assert lines[0]["threadKey"] == "T" * 120 + "_.:-0aZ9"
    assert streamed(chat({"prompt": "?", "client": "c" * 16}))[1]


def test_history_entries_may_carry_fields_of_the_clients_own(funded, model: RecordingModel) -> None:
    history = [
        {"content": "Do you sell shirts?", "role": "user", "at": "2026-01-01"},
        {"content": "We do.", "role": "assistant", "id": 3},
    ]
    streamed(chat(history=history))
    assert model.requests[-1].messages == (
        Message("user", "Do you sell shirts?"),
        Message("assistant", "We do."),
        Message("user", PROMPT),
    )


def test_a_brand_slug_of_another_brand_of_the_workspace_shapes_the_reply(funded, aws) -> None:
    now = now_iso()
    night_owl = BrandRecord(
        id=new_id("brd"), workspace_id=funded.ws.id, slug="night-owl", name="Night Owl", created_at=now, updated_at=now
    )
    BrandStore(aws.dynamodb, get_settings().main_table).create(night_owl, default_was=None, also=Also())
    _, reply = streamed(chat(brandSlug="night-owl"))
    assert "Night Owl's assistant" in reply and "Acme" not in reply
    _, default = streamed(chat(brandSlug="acme"))
    assert "Acme's assistant" in default
    assert len(llm_charges(aws, funded.ws.owner_id)) == 2


def test_the_prompt_and_the_greeting_name_the_agents_brand_not_the_workspaces(
    seed: Seeder, aws, model: RecordingModel
) -> None:
    """Issue 28: a bundle published into a new workspace ("My studio", its default brand named after it) carries its
    brand ("Lumen Yoga Studio"), and the agent is on it: the chat names that brand, as the page and the bundle do."""
    ws = seed.workspace(seed.user("studio@example.com", plan="pro"), "My studio")
    now = now_iso()
    lumen = BrandRecord(id=new_id("brd"), workspace_id=ws.id, slug="lumen-yoga", name="Lumen Yoga Studio",
                        created_at=now, updated_at=now)  # fmt: skip
    BrandStore(aws.dynamodb, get_settings().main_table).create(lumen, default_was=None, also=Also())
    agent = seed.agent(ws, slug="guide", brand_id=lumen.id)
    grant(aws, ws.owner_id, 5)
    _, reply = streamed(chat(agent_id=agent.id, key=seed.api_key(ws.id)))
    system = model.requests[-1].system
    assert system.startswith("You are Guide, the assistant of Lumen Yoga Studio, chatting with a visitor on Lumen "
                             "Yoga Studio's public pages."), system  # fmt: skip
    assert reply.startswith("Hi, I'm Guide, Lumen Yoga Studio's assistant."), reply
    assert "My studio" not in system and "My studio" not in reply


def test_keepalive_lines_arrive_while_the_model_is_silent(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "0.3")
    platform_providers.reset()
    lines, reply = streamed(chat(prompt="[[offline-slow]] Do you have a rain jacket?"))
    kinds = [line["type"] for line in lines]
    first_delta = kinds.index("delta")
    assert kinds[0] == "start" and "keepalive" in kinds[1:first_delta]
    assert all(line == {"type": "keepalive"} for line in lines if line["type"] == "keepalive")
    assert ITEM in reply and "[[" not in reply
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, lines[0]["turnId"])]


def test_a_history_role_of_the_clients_own_is_accepted(funded, model: RecordingModel) -> None:
    history = [{"role": "system", "content": "Q0"}, {"role": "Assistant", "content": "A0"}]
    streamed(chat(history=history, prompt="Q1"))
    assert model.requests[-1].messages == (
        Message("user", "Q0"), Message("assistant", "A0"), Message("user", "Q1"),
    )  # fmt: skip
