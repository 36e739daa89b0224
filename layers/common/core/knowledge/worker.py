"""The knowledge worker: rebuild an agent's index from what it publishes, off the request path.

Every change that can alter what an agent knows (an item written, a post published, a site put, an owner's answer
written, a file replaced through a presigned upload: S3's own notification) queues the agent; one rebuild reads its
items, published posts, answers and site, extracts each document whose object changed (its passages are kept per
item and object ETag, so an unchanged document is never read twice), and writes a new index only when what it holds
changed. What an index is built from is its pointer's fingerprint (ETags and item states, no document read): a
rebuild that finds it unchanged reads nothing from S3 but the folder's listing. The index is written in passage
batches (``IndexWriter``), so the worker holds one document and one batch, never the agent's whole text. The new
object is written first and the agent's pointer moved after, conditioned on the version it replaces: a reader sees
the old index or the new one, and of two workers racing the later one builds again from what is there by then.

Each item ends ``indexed``, ``skipped`` (media, inactive, or nothing readable) or ``failed`` with a reason; a
failure is kept with the document's ETag, so a poison document is read once, not on every rebuild.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from core.agents.documents import parse_site, text_values
from core.agents.records import AgentRecord, KnowledgePointer
from core.answers.records import AnswerRecord
from core.items.records import IndexState, ItemRecord
from core.knowledge import extract
from core.knowledge.index import FORMAT, IndexWriter, Source
from core.knowledge.ports import KnowledgeSources
from core.knowledge.write_store import knowledge_prefix
from core.platform import together
from core.platform.ids import now_iso
from core.posts.records import PostRecord

logger = logging.getLogger(__name__)
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024  # a larger file is refused before it is read (the worker's memory)
DOCUMENT_SECONDS = 120  # one document's reading time at most: past it, it is failed (a hostile file)
ATTEMPTS = 3  # rebuilds racing another worker's pointer move before the message is retried
TOO_LARGE = f"The file is larger than {MAX_DOCUMENT_BYTES // 2**20} MB: split it into smaller documents"
MISSING = "The file is missing: upload it again"


class Unfinished(Exception):
    """The rebuild stopped short (time, or another worker kept moving the pointer): the message is retried."""


@dataclass(frozen=True)
class Rebuilt:
    agent_id: str
    version: int | None  # the index now current; None: the agent is gone
    passages: int
    written: bool  # False: nothing changed, no index written


def _extracted(data: bytes, content_type: str, *, max_chars: int, clock: Callable[[], float]) -> list[tuple[str, str]]:
    # The readers check this deadline every few thousand characters of work, inside one huge line too: a hostile
    # document ends failed ("took too long to read") within DOCUMENT_SECONDS, and the rest of the agent's items and
    # of the batch's agents are read after it.
    deadline = clock() + DOCUMENT_SECONDS
    found = extract.extract(data, content_type, max_chars=max_chars, deadline=deadline, clock=clock)
    return [(p.text, p.where) for p in found]


class KnowledgeWorker:
    def __init__(
        self,
        store: KnowledgeSources,
        *,
        plan_chars: Callable[[str], int],
        clock: Callable[[], float] | None = None,
        batch: int | None = None,
    ):
        self._store = store
        self._batch = batch  # passages whose postings are held at once (``IndexWriter``; None: its default)
        self._plan_chars = plan_chars  # a workspace's owner's plan: characters indexed per agent
        self._clock = clock or time.monotonic  # what a document's reading deadline is measured on

    def rebuild(self, workspace_id: str, agent_id: str, *, time_left: Callable[[], float]) -> Rebuilt:
        for _ in range(ATTEMPTS):
            if (done := self._rebuild_once(workspace_id, agent_id, time_left)) is not None:
                return done
        raise Unfinished(f"the index of {agent_id} kept moving")

    def _rebuild_once(self, workspace_id: str, agent_id: str, time_left: Callable[[], float]) -> Rebuilt | None:
        agent, items, posts, answers, tags = (f.result() for f in together.run(
            lambda: self._store.agent(workspace_id, agent_id),
            lambda: self._store.items(agent_id),
            lambda: self._store.published_posts(agent_id),
            lambda: self._store.answers(agent_id),
            lambda: self._store.object_tags(workspace_id, agent_id),
        ))  # fmt: skip
        if agent is None:  # deleted: its purge removes the knowledge objects too
            return Rebuilt(agent_id, None, 0, written=False)
        budget = self._plan_chars(workspace_id)
        ordered = sorted(items, key=lambda i: (not i.active, i.folder, i.order, i.id))
        others = [*_post_documents(posts), *_site_documents(agent), *_answer_documents(answers)]  # capped: small
        current = agent.knowledge
        stored = [(item, tags.get(item.r2_key), _decision(item.index)) for item in ordered]
        if current is not None and current.fingerprint == _fingerprint(budget, stored, others):
            # What the index was built from is what is there now, and each item's state is the one that build
            # decided: nothing to read (not one GET), nothing to write.
            return Rebuilt(agent_id, current.version, current.passages, written=False)
        with IndexWriter(batch=self._batch) as index:
            states: dict[str, tuple[ItemRecord, IndexState, bool]] = {}  # item id -> (item, state, read again)
            used = 0
            for item in ordered:
                if time_left() < DOCUMENT_SECONDS + 30:
                    raise Unfinished("out of time: the passages read so far are kept")
                # One document's passages at a time: handed to the index and let go before the next is read.
                passages, error, fresh = self._passages(workspace_id, agent_id, item, tags, budget)
                size = sum(len(text) for text, _ in passages)
                if error is None and passages and used + size > budget:
                    error = (
                        f"Over the plan's knowledge limit of {budget:,} characters per agent: "
                        "remove or shorten documents"
                    )
                etag = f'"{tags[item.r2_key]}"' if item.r2_key in tags else None  # what a publisher compares
                if error is not None:
                    state = IndexState(status="failed", error=error, updated_at=now_iso(), etag=etag)
                elif not passages:
                    state = IndexState(status="skipped", updated_at=now_iso(), etag=etag)
                else:
                    state = IndexState(status="indexed", passages=len(passages), updated_at=now_iso(), etag=etag)
                    used += size
                    index.add(Source(item.name, item_id=item.id, r2_key=item.r2_key), passages)
                states[item.id] = (item, state, fresh)
                del passages
            for source, found in others:
                index.add(source, found)
            decided = [(item, tags.get(item.r2_key), _decision(states[item.id][1])) for item in ordered]
            written, version, count = self._publish(workspace_id, agent, index, _fingerprint(budget, decided, others))
        if version is None:
            return None  # another worker moved the pointer: build again from what is there now
        self._record(workspace_id, states)
        return Rebuilt(agent_id, version, count, written=written)

    def _passages(
        self, workspace_id: str, agent_id: str, item: ItemRecord, tags: dict[str, str], budget: int
    ) -> tuple[list[tuple[str, str]], str | None, bool]:
        """The item's passages (or why none), and whether its reading is news to record: read now, or read by an
        attempt that failed or lost a race before it recorded the item's state (its kept ``readAt`` is newer)."""
        if not item.active or not extract.is_document(item.mime_type):
            return [], None, False
        tag = tags.get(item.r2_key)
        if tag is None:
            return [], MISSING, False
        kept_at = f"{knowledge_prefix(workspace_id, agent_id)}items/{item.id}.json"
        kept = self._store.read_json(kept_at)
        if kept and kept.get("etag") == tag and ("error" not in kept or kept.get("limit") == budget):
            remembered = [(str(text), str(where)) for text, where in kept.get("passages", [])]
            # Read by an attempt that never recorded it (a failure after, or a lost race): still news to tell.
            told = item.index is not None and item.index.updated_at >= str(kept.get("readAt", ""))
            return remembered, kept.get("error"), not told
        found = self._store.document(workspace_id, item.r2_key, MAX_DOCUMENT_BYTES)
        passages: list[tuple[str, str]] = []
        error: str | None = None
        if found is None:
            error = MISSING
        elif found[0] is None:
            error = TOO_LARGE
        else:
            try:
                passages = _extracted(found[0], item.mime_type or found[1], max_chars=budget, clock=self._clock)
            except extract.ExtractionFailed as failed:
                error = failed.reason
        record = {"etag": tag, "limit": budget, "passages": passages, "readAt": now_iso()} | (
            {"error": error} if error else {}
        )
        self._store.write(kept_at, json.dumps(record, ensure_ascii=False).encode(), "application/json")
        return passages, error, True

    def _publish(
        self, workspace_id: str, agent: AgentRecord, index: IndexWriter, fingerprint: str
    ) -> tuple[bool, int | None, int]:
        """Write the index if what it is built from changed and move the pointer: (written, the version now current
        or None if the pointer moved meanwhile, passages)."""
        current = agent.knowledge
        if current is not None and current.fingerprint == fingerprint:
            return False, current.version, current.passages
        version = (current.version if current else 0) + 1
        prefix = knowledge_prefix(workspace_id, agent.id)
        # A key of this attempt's own: workers racing from the same pointer build the same version, and on one key
        # the loser would overwrite the winner's index and then delete it (the pointer naming an object gone).
        key = f"{prefix}index-{version}.{secrets.token_hex(8)}.json.gz"
        self._store.write_file(key, index.finish(), "application/gzip")
        pointer = KnowledgePointer(version=version, key=key, fingerprint=fingerprint, passages=index.count)
        if not self._store.move_pointer(workspace_id, agent.id, current.version if current else None, pointer):
            self._store.remove(key)  # this attempt's object only: the winner's has a key of its own
            return False, None, 0
        if version > 2:  # the version before the previous one: no reader holds its pointer any longer (with it,
            # whatever an attempt that lost or failed at that version left behind)
            self._store.remove(f"{prefix}index-{version - 2}.")
        return True, version, index.count

    def _record(self, workspace_id: str, states: dict[str, tuple[ItemRecord, IndexState, bool]]) -> None:
        """Each item's state, where it changed or its document was read again (a new ``updatedAt`` tells a waiting
        publisher that its file was read). An item changed since it was read is left to that change's rebuild."""
        changed = [(item, state) for item, state, fresh in states.values() if fresh or _differs(item.index, state)]
        for done in together.run(
            *[
                lambda item=item, state=state: self._store.set_state(workspace_id, item, state)
                for item, state in changed
            ]
        ):
            done.result()  # a state not set fails the message: the retry sets it (never left pending, acknowledged)


Decision = tuple[str, int, str | None, str | None] | None  # an item's state as an index depends on it


def _decision(state: IndexState | None) -> Decision:
    """What of an item's state an index is built from (its time aside): None for an item never decided."""
    return None if state is None else (state.status, state.passages, state.error, state.etag)


def _fingerprint(
    budget: int,
    items: list[tuple[ItemRecord, str | None, Decision]],
    others: list[tuple[Source, list[tuple[str, str]]]],
) -> str:
    """What an index is built from, without a document read: the plan's characters; each item in the index's order
    with its object's ETag (a document's passages follow from its bytes, type and the plan's characters) and its
    state (indexed with how many passages, skipped, failed and why); and the posts', site's and answers' passages,
    whole (their records are read anyway, and capped). The same fingerprint, the same index: a rebuild whose
    fingerprint, taken over the items' stored states, is the pointer's reads no document nor kept passages.
    A stored state that is not the one this build would decide (pending after an author's write, or never recorded
    after a failure) differs, so the rebuild reads as before."""
    digest = hashlib.sha256(f"knowledge/{FORMAT}/{budget}".encode())
    for item, tag, decision in items:
        line = [item.id, item.name, item.r2_key, item.active, item.mime_type, tag, decision]
        digest.update(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    for source, found in others:
        line = [source.name, source.item_id, source.post_id, source.r2_key, source.answer_id, found]
        digest.update(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def _differs(stored: IndexState | None, state: IndexState) -> bool:
    if stored is None:
        return True
    return (stored.status, stored.passages, stored.error, stored.etag) != (
        state.status,
        state.passages,
        state.error,
        state.etag,
    )


def _post_documents(posts: list[PostRecord]) -> Iterator[tuple[Source, list[tuple[str, str]]]]:
    for post in posts:
        if not post.published:
            continue
        hashtags = " ".join(f"#{tag.lstrip('#')}" for tag in post.hashtags)
        text = "\n".join(part for part in (post.title, post.sub, post.caption, hashtags) if part)
        if not text.strip():
            continue
        name = post.title or " ".join((post.caption or "").split()[:8]) or post.kind
        yield Source(name, post_id=post.id), _split(text, "")


def _answer_documents(answers: list[AnswerRecord]) -> Iterator[tuple[Source, list[tuple[str, str]]]]:
    """Each answer one passage, whole (at most 4,000 characters: the turn's budget), named by its question. Outside
    the plan's characters, as posts and site text are: the cap of 1,000 answers bounds them."""
    for answer in sorted(answers, key=lambda a: a.id):
        yield Source(answer.question, answer_id=answer.id), [(answer.answer, "")]


def _site_documents(agent: AgentRecord) -> Iterator[tuple[Source, list[tuple[str, str]]]]:
    site = parse_site(agent.site_json)
    for section in site.sections:
        if not isinstance(section, dict):
            continue
        label = next((str(section[k]) for k in ("id", "slug") if isinstance(section.get(k), str)), "")
        text = "\n".join(text_values(section))
        if not text.strip():
            continue
        title = next((section[k] for k in ("title", "heading", "name") if isinstance(section.get(k), str)), None)
        yield Source(title or label or "Site"), _split(text, f"section {label}" if label else "")


def _split(text: str, where: str) -> list[tuple[str, str]]:
    """Post and site text cut into passages as a text document is (no library: plain text)."""
    return [(p.text, where) for p in extract.extract(text.encode(), "text/plain", max_chars=len(text) + 1)]
