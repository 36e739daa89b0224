"""The knowledge worker's memory is bounded by a passage batch and one document, not by the agent's text (issue 43).

A rebuild over ten times the text must peak at about the same traced memory: ``tracemalloc``'s peak counts the
bytes Python allocated, which machine load cannot move (no time is measured). The batch is made small here
(``BATCH_PASSAGES``) so that both sizes span many batches; the documents are made before tracing begins, as a
store would hand them over one at a time.

And the index a rebuild writes in batches is the index it wrote whole: the same body, loaded the same.
"""

from __future__ import annotations

import gzip
import json
import random
import tracemalloc
from collections import Counter
from typing import Any

import pytest

from bench.knowledge_recall import InMemorySources
from core.agents.records import AgentRecord
from core.items.records import ItemRecord
from core.knowledge import index as knowledge_index
from core.knowledge.index import Source
from core.knowledge.text import terms
from core.knowledge.worker import KnowledgeWorker

NOW = "2026-01-01T00:00:00.000Z"
DOCUMENT_CHARS = 30_000
SMALL, LARGE = 3, 30  # documents: ten times the text
BATCH = 25  # passages per batch, for this test
BOUND = 1.5  # the large rebuild's peak at most this many times the small one's (before issue 43: 4.3x)


def text(seed: int, chars: int) -> str:
    """Paragraphs of made-up words of a few thousand (seeded): many distinct terms, as a real document has."""
    rng = random.Random(seed)  # noqa: S311 - reproducible text, not a secret
    words = [f"w{rng.randrange(20_000)}x" for _ in range(chars // 7)]
    paragraphs = [" ".join(words[at : at + 80]) + "." for at in range(0, len(words), 80)]
    return "\n\n".join(paragraphs)[:chars]


def shelf(documents: int) -> InMemorySources:
    agent = AgentRecord(id="prj_memory", workspace_id="ws_memory", slug="memory", name="Memory", brand_id="brand_m",
                        active_workflow_id="wf_m", created_at=NOW, updated_at=NOW)  # fmt: skip
    bodies, items = {}, []
    for number in range(documents):
        key = f"projects/prj_memory/docs/{number:03d}.txt"
        bodies[key] = text(number, DOCUMENT_CHARS).encode()
        items.append(ItemRecord(id=f"item_{number:03d}", agent_id="prj_memory", name=f"Note {number}", kind="document",
                                r2_key=key, mime_type="text/plain", size=len(bodies[key]), updated_at=NOW))  # fmt: skip
    # What it writes kept as sizes only (keeping it would count the store's memory as the worker's).
    return InMemorySources(agent, items, [], lambda key: (bodies[key], "text/plain") if key in bodies else None,
                           {key: f"tag-{key}" for key in bodies}, keep_written=False)  # fmt: skip


def peak_of_rebuild(documents: int) -> tuple[int, int]:
    """The traced peak (bytes) of one rebuild of ``documents`` documents, and the passages it indexed."""
    store = shelf(documents)
    worker = KnowledgeWorker(store, plan_chars=lambda _: 100 * DOCUMENT_CHARS * LARGE)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        done = worker.rebuild("ws_memory", "prj_memory", time_left=lambda: 900.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert all(state.status == "indexed" for state in store.states.values()), store.states
    return peak, done.passages


def test_the_workers_memory_does_not_grow_with_the_agents_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(knowledge_index, "BATCH_PASSAGES", BATCH, raising=False)
    small, small_passages = peak_of_rebuild(SMALL)
    large, large_passages = peak_of_rebuild(LARGE)
    assert large_passages >= 9 * small_passages >= 9 * 4 * BATCH  # ten times the passages, many batches at each
    assert large <= BOUND * small, f"peak {large / small:.2f}x at ten times the text ({small:,} -> {large:,} bytes)"
    assert large < LARGE * DOCUMENT_CHARS  # less than the agent's text itself


def whole(documents: list[tuple[Source, list[tuple[str, str]]]]) -> dict[str, Any]:
    """The index's body as it was built before issue 43, all in memory at once: the reference."""
    sources: list[dict[str, Any]] = []
    passages: list[list[Any]] = []
    lengths: list[int] = []
    postings: dict[str, list[int]] = {}
    for source, found in documents:
        sources.append({"name": source.name, "itemId": source.item_id, "postId": source.post_id,
                        "r2Key": source.r2_key})  # fmt: skip
        if source.answer_id is not None:
            sources[-1] |= {"answerId": source.answer_id, "terms": sorted(set(terms(source.name)))}
        for passage, where in found:
            counted = Counter(terms(f"{source.name} {where} {passage}"))
            if counted:
                for term, frequency in counted.items():
                    postings.setdefault(term, []).extend((len(passages), frequency))
                passages.append([len(sources) - 1, where, passage])
                lengths.append(sum(counted.values()))
    return {"format": 1, "sources": sources, "passages": passages, "lengths": lengths, "postings": postings}


@pytest.mark.parametrize("batch", [1, 7, 10_000])
def test_an_index_written_in_batches_is_the_index_written_whole(batch: int) -> None:
    from core.knowledge.index import IndexWriter  # issue 43's writer

    documents = [
        (Source(f"Note {n}", item_id=f"item_{n}", r2_key=f"projects/p/{n}.txt"),
         [(paragraph, f"page {page}") for page, paragraph in enumerate(text(n, 8_000).split("\n\n"))])
        for n in range(6)
    ] + [(Source("When are you open?", answer_id="ans_1"), [("Every day from 7.", "")])]  # fmt: skip
    with IndexWriter(batch=batch) as writer:
        for source, found in documents:
            writer.add(source, found)
        with open(writer.finish(), "rb") as written:
            streamed = json.loads(gzip.decompress(written.read()))
    assert streamed == whole(documents)
    assert len(streamed["passages"]) == writer.count == sum(len(found) for _, found in documents)
    # A term's postings in passage order, across batches: what BM25 walks.
    assert all(numbers[::2] == sorted(numbers[::2]) for numbers in streamed["postings"].values())
