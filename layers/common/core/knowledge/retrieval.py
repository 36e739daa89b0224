"""The chat turn's retrieval: the agent's best passages for the visitor's message, from an index cached per
container.

The agent's item, which the turn reads anyway, names its index's version (``AgentRecord.knowledge``): a
container that holds that version asks nothing of S3, so a turn costs at most one GET per container per index
version, and none at all when nothing changed. A failed or unreadable index leaves the turn without passages, never
without an answer.

An index is as old as its last rebuild (seconds, or longer while the worker is behind), but the items the turn reads
are current: ``usable_sources`` lets through only the passages of items that read still shows active with the same
file, so a document deactivated, deleted or repointed is never quoted while its index waits to be rebuilt.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from core.agents.records import AgentRecord, KnowledgePointer
from core.items.records import ItemRecord
from core.knowledge.index import KnowledgeIndex, Passage, Source, query_terms
from core.knowledge.ports import IndexReader
from core.platform.dynamo import StorageUnavailable

logger = logging.getLogger(__name__)
MAX_PASSAGES = 6
BUDGET_CHARS = 4000  # of passage text in the model's context: about a thousand tokens
CACHED_AGENTS = 16  # a chat container serves a few agents; each cached index is its agent's latest version
SHOWN_PASSAGES = 20  # a preview's ``retrieval`` event: the best of the ranking, taken or not (and all it took)


def usable_sources(items: Iterable[ItemRecord]) -> Callable[[Source], bool]:
    """Which sources a turn may use, judged by its own read of the agent's items (authoring.md: "a passage of an
    inactive or deleted item is never used"): an item's passages only while that read shows the item active and
    holding the file they were read from; posts and site sections as the index has them (the turn reads only the
    newest posts, so it cannot judge an older one: their index follows their writes as before)."""
    files = {item.id: item.r2_key for item in items if item.active}

    def usable(source: Source) -> bool:
        return source.item_id is None or (source.item_id in files and files[source.item_id] == source.r2_key)

    return usable


class Retriever:
    def __init__(self, store: IndexReader, *, cached_agents: int = CACHED_AGENTS):
        self._store = store
        self._cached: OrderedDict[str, tuple[int, KnowledgeIndex]] = OrderedDict()
        self._size = cached_agents
        self._lock = threading.Lock()

    def passages(
        self,
        agent: AgentRecord,
        message: str,
        recent: Sequence[str] = (),
        usable: Callable[[Source], bool] | None = None,
    ) -> list[Passage]:
        """At most ``MAX_PASSAGES`` passages, best first, within ``BUDGET_CHARS``, each of a source ``usable``
        accepts (all, when None); [] for an agent not indexed yet."""
        if agent.knowledge is None:
            return []
        index = self._index(agent.id, agent.knowledge)
        return index.search(query_terms(message, recent), limit=MAX_PASSAGES, budget=BUDGET_CHARS, usable=usable)

    def considered(
        self,
        agent: AgentRecord,
        message: str,
        recent: Sequence[str] = (),
        usable: Callable[[Source], bool] | None = None,
    ) -> list[tuple[Passage, bool]]:
        """What ``passages`` decides for the same turn, with its reasons (``KnowledgeIndex.consider``): every
        passage it takes (``True``) and the best ``SHOWN_PASSAGES`` of the ranking, each with its score, best first.
        The taken ones, in order, are exactly what ``passages`` returns."""
        if agent.knowledge is None:
            return []
        index = self._index(agent.id, agent.knowledge)
        return index.consider(query_terms(message, recent), limit=MAX_PASSAGES, budget=BUDGET_CHARS, usable=usable,
                              shown=SHOWN_PASSAGES)  # fmt: skip

    def search(
        self, agent: AgentRecord, query: str, limit: int, usable: Callable[[Source], bool] | None = None
    ) -> list[Passage]:
        """The best ``limit`` passages for ``query`` as a turn ranks them (the same terms, the same sources usable),
        without the turn's budget of characters: ``POST …/knowledge/search`` shows the ranking itself. An index that
        cannot be read is ``StorageUnavailable`` (503) here, not an empty answer: an owner must not be told that
        nothing matches when the index could not be asked (a turn, by contrast, answers without passages)."""
        if agent.knowledge is None:
            return []
        index = self._index(agent.id, agent.knowledge, strict=True)
        return list(itertools.islice(index.rank(query_terms(query), usable=usable), limit))

    def _index(self, agent_id: str, pointer: KnowledgePointer, *, strict: bool = False) -> KnowledgeIndex:
        with self._lock:
            cached = self._cached.get(agent_id)
            if cached and cached[0] == pointer.version:
                self._cached.move_to_end(agent_id)
                return cached[1]
        index, keep = self._load(agent_id, pointer, strict=strict)
        if not keep:
            return index
        with self._lock:
            self._cached[agent_id] = (pointer.version, index)
            self._cached.move_to_end(agent_id)
            while len(self._cached) > self._size:
                self._cached.popitem(last=False)
        return index

    def _load(self, agent_id: str, pointer: KnowledgePointer, *, strict: bool) -> tuple[KnowledgeIndex, bool]:
        """The index and whether to keep it for this version; ``strict``: an unreadable one raises."""
        try:
            data = self._store.index(pointer.key)
        except StorageUnavailable:  # not kept: the next turn tries again
            logger.warning("knowledge index unreadable", extra={"agentId": agent_id, "version": pointer.version})
            if strict:
                raise
            return KnowledgeIndex.empty(), False
        if data is None:  # superseded and removed between the pointer's read and this GET: the next turn reads anew
            return KnowledgeIndex.empty(), False
        try:
            return KnowledgeIndex.load(data), True
        except (ValueError, KeyError, TypeError, OSError, EOFError):  # kept empty: a damaged version is not read again
            logger.exception("knowledge index damaged", extra={"agentId": agent_id, "version": pointer.version})
            return KnowledgeIndex.empty(), True
