"""An agent's knowledge index: its passages and where each comes from, ranked by BM25.

One object per agent and version in the content bucket (``workspaces/<ws>/knowledge/<agent>/index-<n>.<random>
.json.gz``), never reachable through ``/v1/r2`` (``knowledge/`` is not on the read plane's allowlist). The worker
builds it with its postings already counted, so a chat container that loads a new version only parses JSON: no
passage is tokenised on the read plane. BM25 needs no added service and ranks the same offline and on AWS;
embeddings may come later behind ``search`` (docs/decisions.md, "Knowledge").

The owner's answers (``core.answers``) are passages too, each named by its question; the worker stores a question's
terms beside its source, and an answer whose question is close to the visitor's message ranks before every other
passage (``close``; docs/decisions.md, "The owner's answers").
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from core.knowledge.text import terms

FORMAT = 1
K1, B = 1.2, 0.75  # BM25's usual constants
CLOSE = 0.5  # an answer's question this similar to the message (Dice over distinct terms) ranks first


@dataclass(frozen=True)
class Source:
    """What a passage belongs to, as the chat's ``sources`` event names it."""

    name: str
    item_id: str | None = None
    post_id: str | None = None
    r2_key: str | None = None
    answer_id: str | None = None  # an owner's answer: ``name`` is its question

    def wire(self, where: str) -> dict[str, str | None]:
        """As the ``sources`` event carries it (``core.chat.models.ChatSource``): every key, null where it has none."""
        return {"itemId": self.item_id, "postId": self.post_id, "answerId": self.answer_id, "name": self.name,
                "r2Key": self.r2_key, "where": where}  # fmt: skip


def close(question: frozenset[str], message: frozenset[str]) -> bool:
    """Whether an answer's question is close to the message: their distinct terms overlap by Dice's coefficient
    (twice the shared terms over both counts) of at least ``CLOSE``. "When are you open on Sunday?" and "Sunday
    opening hours" share 2 of 3 + 2 terms (0.8); a message naming only Sunday among other things is not close."""
    if not question or not message:
        return False
    return 2 * len(question & message) / (len(question) + len(message)) >= CLOSE


@dataclass(frozen=True)
class Passage:
    """A passage as the chat uses it: its text, where it stands in its source, and the source."""

    text: str
    where: str
    source: Source
    score: float = 0.0


def build(documents: Iterable[tuple[Source, Iterable[tuple[str, str]]]]) -> tuple[bytes, int, str]:
    """The index object (gzip JSON) of ``documents`` (each a source and its ``(text, where)`` passages), how many
    passages it holds, and its fingerprint (the same documents give the same one: an unchanged index is not
    written again)."""
    sources: list[dict[str, Any]] = []
    passages: list[list[Any]] = []
    lengths: list[int] = []
    postings: dict[str, list[int]] = {}
    for source, found in documents:
        sources.append({"name": source.name, "itemId": source.item_id, "postId": source.post_id,
                        "r2Key": source.r2_key})  # fmt: skip
        if source.answer_id is not None:  # only answers carry these: an index without answers is as it was
            sources[-1] |= {"answerId": source.answer_id, "terms": sorted(set(terms(source.name)))}
        for text, where in found:
            # Ranked with its source's name and place: "opening hours" finds the note named so, whose text is
            # only the hours themselves.
            counted = Counter(terms(f"{source.name} {where} {text}"))
            if not counted:
                continue
            number = len(passages)
            passages.append([len(sources) - 1, where, text])
            lengths.append(sum(counted.values()))
            for term, frequency in counted.items():
                postings.setdefault(term, []).extend((number, frequency))
    body = {"format": FORMAT, "sources": sources, "passages": passages, "lengths": lengths, "postings": postings}
    encoded = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(encoded, 6, mtime=0), len(passages), hashlib.sha256(encoded).hexdigest()


class KnowledgeIndex:
    """A loaded index, searched many times by one container."""

    def __init__(self, body: dict[str, Any]):
        self._sources = [Source(s["name"], s.get("itemId"), s.get("postId"), s.get("r2Key"), s.get("answerId"))
                         for s in body["sources"]]  # fmt: skip
        # An answer's question's terms, by source number: counted by the worker, so nothing is tokenised here.
        self._questions = {n: frozenset(s["terms"]) for n, s in enumerate(body["sources"]) if s.get("answerId")}
        self._passages: list[list[Any]] = body["passages"]
        self._lengths: list[int] = body["lengths"]
        self._postings: dict[str, list[int]] = body["postings"]
        self._average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 0.0

    @classmethod
    def load(cls, data: bytes) -> KnowledgeIndex:
        body = json.loads(gzip.decompress(data))
        if body.get("format") != FORMAT:
            raise ValueError(f"knowledge index format {body.get('format')!r}")
        return cls(body)

    @classmethod
    def empty(cls) -> KnowledgeIndex:
        return cls({"sources": [], "passages": [], "lengths": [], "postings": {}})

    def __len__(self) -> int:
        return len(self._passages)

    def rank(self, weighted: dict[str, float], *, usable: Callable[[Source], bool] | None = None) -> Iterator[Passage]:
        """Every passage a query term finds, best first (ties: the earlier passage), each with its BM25 score, of a
        source ``usable`` accepts (all, when None). Lazy: a caller that has enough stops the walk.

        An owner's answer whose question is ``close`` to the message (its terms of full weight: not the thread's
        recent turns) comes before every other passage: its score is its own plus the best score of the ranking, so
        the scores still say the order."""
        count = len(self._passages)
        scores: dict[int, float] = {}
        for term, weight in weighted.items():
            posting = self._postings.get(term)
            if not posting:
                continue
            found = len(posting) // 2
            idf = math.log(1 + (count - found + 0.5) / (found + 0.5))
            for at in range(0, len(posting), 2):
                number, frequency = posting[at], posting[at + 1]
                norm = K1 * (1 - B + B * self._lengths[number] / self._average)
                scores[number] = scores.get(number, 0.0) + weight * idf * frequency * (K1 + 1) / (frequency + norm)
        if self._questions and scores:
            message = frozenset(term for term, weight in weighted.items() if weight >= 1.0)
            answered = [n for n in scores if (q := self._questions.get(self._passages[n][0])) and close(q, message)]
            best = max(scores.values())
            for number in answered:
                scores[number] += best
        for number in sorted(scores, key=lambda n: (-scores[n], n)):
            source, where, text = self._passages[number]
            if usable is not None and not usable(self._sources[source]):
                continue
            yield Passage(text, where, self._sources[source], scores[number])

    def search(
        self, weighted: dict[str, float], *, limit: int, budget: int, usable: Callable[[Source], bool] | None = None
    ) -> list[Passage]:
        """The best passages for query terms (``weighted``: term -> weight), best first: at most ``limit``, their
        texts together at most ``budget`` characters (a passage that does not fit is passed over), each of a source
        ``usable`` accepts (one it refuses takes no place nor budget: the next best passage has them)."""
        return [passage for passage, taken in self.consider(weighted, limit=limit, budget=budget, usable=usable)
                if taken]  # fmt: skip

    def consider(
        self,
        weighted: dict[str, float],
        *,
        limit: int,
        budget: int,
        usable: Callable[[Source], bool] | None = None,
        shown: int = 0,
    ) -> list[tuple[Passage, bool]]:
        """What ``search`` decides, with its reasons: the passages it takes (``True``), in rank order, together with
        the best ``shown`` passages of the ranking, taken or not (``False``: passed over for the budget, or after the
        ``limit`` was reached). The preview's ``retrieval`` event lists them (core.chat.preview)."""
        considered: list[tuple[Passage, bool]] = []
        taken = used = 0
        for rank, passage in enumerate(self.rank(weighted, usable=usable)):
            fits = taken < limit and used + len(passage.text) <= budget
            if fits:
                taken += 1
                used += len(passage.text)
            if fits or rank < shown:
                considered.append((passage, fits))
            if taken == limit and rank + 1 >= shown:
                break
        return considered


def query_terms(message: str, recent: Iterable[str] = ()) -> dict[str, float]:
    """The visitor's message counts fully; the thread's recent turns at half weight (a follow-up such as "and on
    Sunday?" keeps the subject of the turn before)."""
    weighted: dict[str, float] = {}
    for text in recent:
        for term in terms(text):
            weighted[term] = 0.5
    for term in terms(message):
        weighted[term] = 1.0
    return weighted
