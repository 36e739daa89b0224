"""The knowledge index: built by the worker, searched by the chat (BM25 over counted postings), and the container
cache that reads each index version at most once."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from core.agents.records import AgentRecord, KnowledgePointer
from core.knowledge.index import KnowledgeIndex, Source, build, query_terms
from core.knowledge.queue import agents_named
from core.knowledge.retrieval import Retriever
from core.knowledge.text import terms
from core.platform.dynamo import StorageUnavailable

HOURS = Source("Opening hours", item_id="item_1", r2_key="projects/prj_1/notes/hours.txt")
PRICES = Source("Price list", item_id="item_2", r2_key="projects/prj_1/docs/prices.csv")
POST = Source("Summer menu", post_id="post_1")
DOCUMENTS = [
    (HOURS, [("Mon-Fri 7:00-18:00\nSat-Sun 8:00-16:00", "")]),
    (PRICES, [("item,price_eur\nsmall,3.20\nregular,3.90\nlarge,4.50", "rows 1-4")]),
    (POST, [("Iced lattes are back for the summer, with oat milk at no extra cost.", "")]),
]


def loaded(documents: Any = DOCUMENTS) -> KnowledgeIndex:
    data, _, _ = build(documents)
    return KnowledgeIndex.load(data)


def test_terms_drop_common_words_and_plurals_but_keep_numbers() -> None:
    assert terms("What are the prices of 2 small coffees at 8:00?") == ["price", "2", "small", "coffee", "8", "00"]


@pytest.mark.parametrize(("asked", "written"), [
    ("Can I book a table?", "Bookings online"), ("When do you open?", "Opening hours"),
    ("Open on Saturday?", "Sat-Sun 8:00-16:00"), ("Is there wifi?", "Free Wi-Fi for guests"),
])  # fmt: skip
def test_word_forms_meet(asked: str, written: str) -> None:
    assert set(terms(asked)) & set(terms(written))


def test_the_source_name_finds_a_passage_whose_text_does_not_say_it() -> None:
    found = loaded().search(query_terms("What are your opening hours on Sunday?"), limit=3, budget=4000)
    assert [p.source for p in found][:1] == [HOURS]
    assert "Sat-Sun 8:00-16:00" in found[0].text


def test_the_best_passage_comes_first_and_unrelated_ones_never() -> None:
    found = loaded().search(query_terms("How much is a small one?"), limit=3, budget=4000)
    assert [p.source.name for p in found] == ["Price list"]
    assert found[0].where == "rows 1-4"


def test_limit_and_budget_bound_what_is_given_to_the_model() -> None:
    many = [(Source(f"Doc {n}", item_id=f"item_{n}"), [("coffee " * 50, "")]) for n in range(10)]
    index = loaded(many)
    assert len(index.search(query_terms("coffee"), limit=3, budget=10_000)) == 3
    found = index.search(query_terms("coffee"), limit=10, budget=700)
    assert len(found) == 2 and sum(len(p.text) for p in found) <= 700


def test_the_same_documents_build_the_same_bytes_and_fingerprint() -> None:
    first, second = build(DOCUMENTS), build(DOCUMENTS)
    assert first == second and first[1] == 3
    assert build(DOCUMENTS[:2])[2] != first[2]


def test_a_recent_turn_keeps_the_subject_of_a_follow_up() -> None:
    weighted = query_terms("and on Sunday?", ["What are your opening hours?"])
    assert weighted["sunday"] == 1.0 and weighted["hour"] == 0.5
    assert loaded().search(weighted, limit=1, budget=4000)[0].source == HOURS


def test_an_index_of_another_format_is_refused() -> None:
    with pytest.raises(ValueError, match="format"):
        KnowledgeIndex.load(gzip.compress(json.dumps({"format": 99}).encode()))


class Reads:
    def __init__(self, data: bytes | Exception | None) -> None:
        self.data, self.keys = data, list[str]()

    def index(self, key: str) -> bytes | None:
        self.keys.append(key)
        if isinstance(self.data, Exception):
            raise self.data
        return self.data


def agent(version: int | None) -> AgentRecord:
    pointer = None if version is None else KnowledgePointer(version=version, key=f"k/index-{version}.json.gz",
                                                             fingerprint="f", passages=3)  # fmt: skip
    return AgentRecord(id="prj_1", workspace_id="ws_1", slug="a", name="A", brand_id="b", active_workflow_id="w",
                       created_at="2026-01-01T00:00:00.000Z", updated_at="2026-01-01T00:00:00.000Z",
                       knowledge=pointer)  # fmt: skip


def test_a_container_reads_each_index_version_once() -> None:
    store = Reads(build(DOCUMENTS)[0])
    retriever = Retriever(store)
    for _ in range(3):
        assert retriever.passages(agent(1), "opening hours")[0].source == HOURS
    assert store.keys == ["k/index-1.json.gz"]
    retriever.passages(agent(2), "opening hours")
    assert store.keys == ["k/index-1.json.gz", "k/index-2.json.gz"]


def test_an_agent_not_indexed_yet_reads_nothing() -> None:
    store = Reads(None)
    assert Retriever(store).passages(agent(None), "opening hours") == []
    assert store.keys == []


@pytest.mark.parametrize("failure", [StorageUnavailable(), None], ids=["unreadable", "gone"])
def test_an_index_that_cannot_be_read_leaves_the_turn_without_passages_and_is_read_again(failure: Any) -> None:
    store = Reads(failure)
    retriever = Retriever(store)
    assert retriever.passages(agent(1), "opening hours") == []
    assert retriever.passages(agent(1), "opening hours") == []
    assert len(store.keys) == 2  # not kept: the next turn tries again


def test_a_damaged_index_is_kept_empty_for_its_version() -> None:
    store = Reads(b"not gzip")
    retriever = Retriever(store)
    assert retriever.passages(agent(1), "hours") == [] and retriever.passages(agent(1), "hours") == []
    assert len(store.keys) == 1


def test_the_cache_keeps_the_newest_agents_only() -> None:
    store = Reads(build(DOCUMENTS)[0])
    retriever = Retriever(store, cached_agents=2)
    for name in ("a", "b", "c", "a"):
        retriever.passages(agent(1).model_copy(update={"id": name}), "hours")
    assert len(store.keys) == 4  # "a" was dropped for "c", then read again


@pytest.mark.parametrize(("body", "named"), [
    ('{"workspaceId": "ws_1", "agentId": "prj_1"}', {("ws_1", "prj_1")}),
    (json.dumps({"detail": {"object": {"key": "workspaces/ws_1/projects/prj_2/d/a b.pdf"}}}), {("ws_1", "prj_2")}),
    (json.dumps({"Records": [{"s3": {"object": {"key": "workspaces/ws_1/projects/prj_3/docs/menu+2024.pdf"}}}]}),
     {("ws_1", "prj_3")}),
    (json.dumps({"detail": {"object": {"key": "workspaces/ws_1/conversations/prj_1/t.json"}}}), set()),
    (json.dumps({"detail": {"object": {"key": "workspaces/ws_1/knowledge/prj_1/index-2.json.gz"}}}), set()),
    (json.dumps({"detail": {"object": {"key": "workspaces/ws_1/projects/prj_1"}}}), set()),
    ('{"Event": "s3:TestEvent"}', set()), ("not json", set()), ("[1]", set()),
])  # fmt: skip
def test_messages_name_the_agents_to_read_again(body: str, named: set[tuple[str, str]]) -> None:
    assert agents_named(body) == named


@pytest.mark.parametrize("source", [HOURS, POST, Source("About us")], ids=["item", "post", "section"])
def test_a_source_on_the_wire_is_the_contracts(source: Source) -> None:
    from core.chat.models import ChatSource

    wire = source.wire("page 2")
    assert ChatSource.model_validate(wire).wire() == wire
