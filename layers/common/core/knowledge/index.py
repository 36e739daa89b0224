"""An agent's knowledge index: its passages and where each comes from, ranked by BM25.

One object per agent and version in the content bucket (``workspaces/<ws>/knowledge/<agent>/index-<n>.<random>
.json.gz``), never reachable through ``/v1/r2`` (``knowledge/`` is not on the read plane's allowlist). The worker
builds it with its postings already counted, so a chat container that loads a new version only parses JSON: no
passage is tokenised on the read plane. BM25 needs no added service and ranks the same offline and on AWS;
embeddings may come later behind ``search`` (docs/decisions.md, "Knowledge").

The worker writes it in passage batches (``IndexWriter``: postings spilled to sorted runs in ``/tmp`` and merged),
so its memory is bounded by a batch and one document, not by the agent's text; the object is the same one body
either way, and a container loads it whole as before (issue 43).

The owner's answers (``core.answers``) are passages too, each named by its question; the worker stores a question's
terms beside its source, and an answer whose question is close to the visitor's message ranks before every other
passage (``close``; docs/decisions.md, "The owner's answers").
"""

from __future__ import annotations

import gzip
import hashlib
import heapq
import json
import math
import os
import shutil
import tempfile
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


BATCH_PASSAGES = 2000  # the postings held in memory at once: past it, a batch is spilled to a sorted run on disk
FAN_IN = 8  # runs of one size merged into one (an external sort's levels): the files open at once stay few


class IndexWriter:
    """An index built in passage batches, its memory bounded by a batch rather than by the agent's text.

    ``add`` appends each passage to a file of passages (one JSON line each) and counts its terms into the batch's
    postings; every ``BATCH_PASSAGES`` passages the batch's postings are written as a run sorted by term. ``finish``
    writes the gzip object (the same body ``KnowledgeIndex.load`` reads: sources, passages, lengths, postings), the
    runs merged term by term, a term's postings run by run (passage numbers ascending), never one list of them all.
    Everything lives in a directory of its own under the system's temporary one (Lambda's ``/tmp``), removed by
    ``close``. Use as a context manager."""

    def __init__(self, *, batch: int | None = None, folder: str | None = None):
        self._batch = batch or BATCH_PASSAGES
        self._folder = tempfile.mkdtemp(prefix="knowledge-index-", dir=folder)
        self._passages = open(os.path.join(self._folder, "passages"), "w", encoding="utf-8")  # noqa: SIM115
        self._lengths = open(os.path.join(self._folder, "lengths"), "w", encoding="ascii")  # noqa: SIM115
        self._runs: list[tuple[int, str]] = []  # (level, path), in passage order: a run of level n holds FAN_IN**n
        self._made = 0  # run files made (their names)
        self._postings: dict[str, list[int]] = {}
        self._sources: list[dict[str, Any]] = []  # one per document: small, bounded by the agent's caps
        self.count = 0  # passages so far
        self.output: str | None = None  # the gzip object, once ``finish`` wrote it

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._passages.close()
        self._lengths.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def add(self, source: Source, found: Iterable[tuple[str, str]]) -> None:
        """One document: its source and its ``(text, where)`` passages (a passage with no term is left out)."""
        self._sources.append({"name": source.name, "itemId": source.item_id, "postId": source.post_id,
                              "r2Key": source.r2_key})  # fmt: skip
        if source.answer_id is not None:  # only answers carry these: an index without answers is as it was
            self._sources[-1] |= {"answerId": source.answer_id, "terms": sorted(set(terms(source.name)))}
        number_of_source = len(self._sources) - 1
        for text, where in found:
            # Ranked with its source's name and place: "opening hours" finds the note named so, whose text is
            # only the hours themselves.
            counted = Counter(terms(f"{source.name} {where} {text}"))
            if not counted:
                continue
            number = self.count
            self.count += 1
            self._passages.write(json.dumps([number_of_source, where, text], separators=(",", ":"),
                                            ensure_ascii=False) + "\n")  # fmt: skip
            self._lengths.write(f"{sum(counted.values())}\n")
            for term, frequency in counted.items():
                self._postings.setdefault(term, []).extend((number, frequency))
            if self.count % self._batch == 0:
                self._spill()

    def _spill(self) -> None:
        """The batch's postings as a run: a line per term, sorted by the term as JSON writes it (every run in the
        same order, so ``heapq.merge`` meets a term's lines together)."""
        if not self._postings:
            return
        encoded = sorted((json.dumps(term, ensure_ascii=False), numbers) for term, numbers in self._postings.items())
        self._postings = {}
        with open(path := self._run_path(), "w", encoding="utf-8") as run:
            for term, numbers in encoded:
                run.write(f"{term}\t{','.join(map(str, numbers))}\n")
        del encoded
        self._runs.append((0, path))
        # FAN_IN runs of one level merged into one of the next: the final merge opens a few runs per level (the
        # levels grow as the log of the text), and each passage's postings are copied once per level.
        while len(self._runs) >= FAN_IN and len({level for level, _ in self._runs[-FAN_IN:]}) == 1:
            level = self._runs[-1][0]
            merged = self._run_path()
            with open(merged, "w", encoding="utf-8") as out:
                for _, line in self._lines([path for _, path in self._runs[-FAN_IN:]]):
                    out.write(line)  # a term's lines kept apart (each a batch's at most), in passage order
            for _, done in self._runs[-FAN_IN:]:
                os.remove(done)
            self._runs[-FAN_IN:] = [(level + 1, merged)]

    def _run_path(self) -> str:
        self._made += 1
        return os.path.join(self._folder, f"run-{self._made:06d}")

    @staticmethod
    def _lines(paths: list[str]) -> Iterator[tuple[str, str]]:
        """The runs' lines merged by term, as ``(term, line)``; a term's lines in the runs' order (``heapq.merge``
        is stable), so its passage numbers ascend."""
        runs = [open(path, encoding="utf-8") for path in paths]  # noqa: SIM115 - closed below
        try:
            yield from heapq.merge(*[((line.partition("\t")[0], line) for line in run) for run in runs],
                                   key=lambda keyed: keyed[0])  # fmt: skip
        finally:
            for run in runs:
                run.close()

    def finish(self) -> str:
        """Write the index object (gzip JSON) and return its path; its bytes are fixed by the documents added."""
        self._spill()
        self._passages.close()
        self._lengths.close()
        self.output = os.path.join(self._folder, "index.json.gz")
        with open(self.output, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as out:

            def put(text: str) -> None:
                out.write(text.encode())

            put(f'{{"format":{FORMAT},"sources":')
            put(json.dumps(self._sources, separators=(",", ":"), ensure_ascii=False))
            put(',"passages":[')
            self._copy(os.path.join(self._folder, "passages"), put)
            put('],"lengths":[')
            self._copy(os.path.join(self._folder, "lengths"), put)
            put('],"postings":{')
            self._merge(put)
            put("}}")
        return self.output

    @staticmethod
    def _copy(path: str, put: Callable[[str], None]) -> None:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines):
                put(("," if number else "") + line.rstrip("\n"))

    def _merge(self, put: Callable[[str], None]) -> None:
        previous = None
        for term, line in self._lines([path for _, path in self._runs]):
            numbers = line[len(term) + 1 : -1]
            if term != previous:
                put(("]," if previous is not None else "") + f"{term}:[{numbers}")
                previous = term
            else:
                put(f",{numbers}")
        if previous is not None:
            put("]")


def build(documents: Iterable[tuple[Source, Iterable[tuple[str, str]]]]) -> tuple[bytes, int, str]:
    """The index object (gzip JSON) of ``documents`` (each a source and its ``(text, where)`` passages), how many
    passages it holds, and the sha-256 of its JSON (the same documents give the same bytes). In memory: for tests,
    benches and small indexes; the worker writes through ``IndexWriter`` itself."""
    with IndexWriter() as writer:
        for source, found in documents:
            writer.add(source, found)
        with open(writer.finish(), "rb") as written:
            data = written.read()
    return data, writer.count, hashlib.sha256(gzip.decompress(data)).hexdigest()


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
