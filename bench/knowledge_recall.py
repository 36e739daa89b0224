"""Knowledge recall@3: does the ranker put the document that answers a visitor's question among the top 3 sources?

The questions are tests/data/knowledge_questions.json (shipped with the tests, written from the demo bundles'
documents): each names its bundle (``examples/<bundle>/``) and the files that hold its answer. Each bundle's index is
built by the knowledge worker itself (``KnowledgeWorker.rebuild``) over an in-memory store holding the bundle as a
publish leaves it: its items (active and not, typed by extension as the Python client uploads them), its published
posts and its site, so the documents compete with everything else the agent's index holds. Each question is asked as
the chat asks (``query_terms``, then ``search``, limit 3, the chat's character budget); a hit is an expected file among
the sources of those 3 passages. The search's own time is bench/knowledge.py's.

tests/unit/knowledge/test_recall.py asserts a floor on the same figure (``recall()``).

    PYTHONPATH=layers/common:. .venv/bin/python bench/knowledge_recall.py [--json PATH]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: ``bench`` and the layer importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from core.agents.records import AgentRecord, KnowledgePointer  # noqa: E402
from core.answers.records import AnswerRecord  # noqa: E402
from core.items.records import IndexState, ItemRecord  # noqa: E402
from core.knowledge.index import KnowledgeIndex, query_terms  # noqa: E402
from core.knowledge.retrieval import BUDGET_CHARS  # noqa: E402
from core.knowledge.worker import KnowledgeWorker, Rebuilt  # noqa: E402
from core.posts.records import PostRecord  # noqa: E402

QUESTIONS = ROOT / "tests" / "data" / "knowledge_questions.json"
EXAMPLES = ROOT / "examples"
TOP = 3
WORKSPACE = "ws_recall"
NOW = "2026-01-01T00:00:00.000Z"
# What the Python client uploads a bundle's readable files as (clients/python: bundle/files.py, CONTENT_TYPES).
OOXML, ODF, TEXT = (
    "application/vnd.openxmlformats-officedocument.",
    "application/vnd.oasis.opendocument.",
    "; charset=utf-8",
)
CONTENT_TYPES = {
    ".pdf": "application/pdf", ".json": "application/json", ".txt": "text/plain" + TEXT,
    ".md": "text/markdown" + TEXT, ".csv": "text/csv" + TEXT, ".docx": OOXML + "wordprocessingml.document",
    ".xlsx": OOXML + "spreadsheetml.sheet", ".pptx": OOXML + "presentationml.presentation",
    ".odt": ODF + "text", ".ods": ODF + "spreadsheet", ".odp": ODF + "presentation",
}  # fmt: skip
MEDIA_TYPES = {".jpg": "image/jpeg", ".png": "image/png", ".mp4": "video/mp4", ".wav": "audio/wav",
               ".uri": "text/uri-list" + TEXT}  # fmt: skip


@dataclass
class InMemorySources:
    """The worker's store (``core.knowledge.ports.KnowledgeSources``) in memory: one agent, its items and posts, and
    its folder's objects, read through ``objects`` (r2 key -> bytes and stored type, None if absent) as the worker
    asks for them. What it writes is kept only as sizes, and the index objects, unless ``keep_written`` is False."""

    agent_record: AgentRecord
    item_records: list[ItemRecord]
    posts: list[PostRecord]
    objects: Callable[[str], tuple[bytes, str] | None]
    tags: dict[str, str]
    keep_written: bool = True
    written: dict[str, bytes] = field(default_factory=dict)
    written_bytes: dict[str, int] = field(default_factory=dict)
    states: dict[str, IndexState] = field(default_factory=dict)

    def agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        return self.agent_record

    def items(self, agent_id: str) -> list[ItemRecord]:
        return list(self.item_records)

    def published_posts(self, agent_id: str) -> list[PostRecord]:
        return [post for post in self.posts if post.published]

    def answers(self, agent_id: str) -> list[AnswerRecord]:
        return []  # the recall bench measures documents: an owner's answer is ranked apart (core.knowledge.index)

    def set_state(self, workspace_id: str, item: ItemRecord, state: IndexState) -> bool:
        self.states[item.id] = state
        return True

    def move_pointer(self, workspace_id: str, agent_id: str, seen: int | None, pointer: KnowledgePointer) -> bool:
        current = self.agent_record.knowledge
        if (current.version if current else None) != seen:
            return False
        self.agent_record = self.agent_record.model_copy(update={"knowledge": pointer})
        return True

    def object_tags(self, workspace_id: str, agent_id: str) -> dict[str, str]:
        return dict(self.tags)

    def document(self, workspace_id: str, r2_key: str, max_bytes: int) -> tuple[bytes | None, str] | None:
        found = self.objects(r2_key)
        if found is None:
            return None
        return (found[0] if len(found[0]) <= max_bytes else None), found[1]

    def read_json(self, key: str) -> dict[str, Any] | None:
        return None  # nothing read before: every document is extracted

    def write(self, key: str, body: bytes, content_type: str) -> None:
        self.written_bytes[key] = len(body)
        if self.keep_written and key.endswith(".json.gz"):
            self.written[key] = body

    def write_file(self, key: str, path: str, content_type: str) -> None:
        if self.keep_written and key.endswith(".json.gz"):
            with open(path, "rb") as written:
                self.write(key, written.read(), content_type)
        else:  # only its size: the measure of the worker's memory holds nothing the worker does not
            self.written_bytes[key] = os.path.getsize(path)

    def remove(self, key: str) -> None:
        self.written.pop(key, None)

    def index(self) -> KnowledgeIndex:
        """The index the agent's pointer names now."""
        pointer = self.agent_record.knowledge
        assert pointer is not None, "the agent was not indexed"
        return KnowledgeIndex.load(self.written[pointer.key])


def rebuild(store: InMemorySources, *, plan_chars: int) -> Rebuilt:
    """One rebuild of the store's agent by the knowledge worker, with all the time it wants."""
    worker = KnowledgeWorker(store, plan_chars=lambda _: plan_chars)
    return worker.rebuild(WORKSPACE, store.agent_record.id, time_left=lambda: 900.0)


def agent_record(agent_id: str, name: str, site_json: str | None = None) -> AgentRecord:
    return AgentRecord(id=agent_id, workspace_id=WORKSPACE, slug=agent_id, name=name, brand_id="brand_recall",
                       active_workflow_id="wf_recall", site_json=site_json, created_at=NOW, updated_at=NOW)  # fmt: skip


def bundle_store(bundle: str) -> InMemorySources:
    """The bundle as a publish leaves it: items, published posts, site and the files its items name."""
    folder = EXAMPLES / bundle
    agent_id = f"prj_{bundle.replace('-', '_')}"
    spec = json.loads((folder / "agent.json").read_text())
    site = folder / "site.json"
    agent = agent_record(agent_id, spec["name"], site.read_text() if site.exists() else None)
    objects: dict[str, tuple[bytes, str]] = {}
    items = []
    for number, entry in enumerate(json.loads((folder / "items.json").read_text())):
        path = folder / entry["file"]
        suffix = path.suffix.lower()
        content_type = CONTENT_TYPES.get(suffix) or MEDIA_TYPES.get(suffix, "application/octet-stream")
        r2_key = f"projects/{agent_id}/{entry['file']}"
        body = path.read_bytes() if path.exists() else b""
        objects[r2_key] = (body, content_type)
        fields = {k: v for k, v in entry.items() if k != "file"}
        items.append(ItemRecord.model_validate(fields | {
            "id": f"item_{number:03d}", "agentId": agent_id, "r2Key": r2_key,
            "mimeType": content_type.split(";", 1)[0], "size": len(body), "updatedAt": NOW,
        }))  # fmt: skip
    posts = []
    for number, entry in enumerate(json.loads((folder / "posts.json").read_text())):
        fields = {k: v for k, v in entry.items() if k != "status"}
        posts.append(PostRecord.model_validate(fields | {
            "id": f"post_{number:04d}", "agentId": agent_id, "updatedAt": NOW,
            "published": entry.get("status", "published") == "published",
        }))  # fmt: skip
    posts.sort(key=lambda p: p.created_at, reverse=True)  # the store's order: newest first
    tags = {key: hashlib.md5(body, usedforsecurity=False).hexdigest() for key, (body, _) in objects.items()}
    return InMemorySources(agent, items, posts, objects.get, tags)


@dataclass(frozen=True)
class Answer:
    bundle: str
    question: str
    expected: tuple[str, ...]
    found: tuple[str, ...]  # the top passages' sources, best first: a bundle file, or a post's or section's name

    @property
    def hit(self) -> bool:
        return any(name in self.expected for name in self.found)


def questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(path.read_text())["questions"]
    return found


def answers(asked: list[dict[str, Any]] | None = None, *, plan_chars: int = 5_000_000) -> list[Answer]:
    """Every question asked of its bundle's index (built once per bundle), with the sources of the top 3."""
    asked = questions() if asked is None else asked
    indexes: dict[str, tuple[KnowledgeIndex, str]] = {}
    found = []
    for entry in asked:
        bundle = entry["bundle"]
        if bundle not in indexes:
            store = bundle_store(bundle)
            rebuild(store, plan_chars=plan_chars)
            indexes[bundle] = (store.index(), f"projects/{store.agent_record.id}/")
        index, prefix = indexes[bundle]
        passages = index.search(query_terms(entry["question"]), limit=TOP, budget=BUDGET_CHARS)
        names = tuple((p.source.r2_key or "").removeprefix(prefix) or p.source.name for p in passages)
        found.append(Answer(bundle, entry["question"], tuple(entry["expected"]), names))
    return found


def recall(found: list[Answer]) -> float:
    return sum(answer.hit for answer in found) / len(found) if found else 0.0


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__).parse_args(argv)
    started = time.perf_counter()
    found = answers()
    seconds = time.perf_counter() - started
    per_bundle = sorted({a.bundle for a in found})
    rows = [[bundle, sum(a.bundle == bundle for a in found), sum(a.hit for a in found if a.bundle == bundle),
             f"{recall([a for a in found if a.bundle == bundle]):.2f}"] for bundle in per_bundle]  # fmt: skip
    rows.append(["all", len(found), sum(a.hit for a in found), f"{recall(found):.2f}"])
    missed = [[a.bundle, a.question, " or ".join(a.expected), ", ".join(a.found) or "(nothing)"]
              for a in found if not a.hit]  # fmt: skip
    parts = [
        f"{len(found)} questions (tests/data/knowledge_questions.json) about the demo bundles' documents, each asked "
        f"of its bundle's index as the knowledge worker builds it (documents, published posts and site together); "
        f"a hit is a file holding the answer among the sources of the top {TOP} passages. Indexing and asking took "
        f"{seconds:.1f} s.",
        table(["bundle", "questions", f"answered in the top {TOP}", f"recall@{TOP}"], rows),
    ]
    if missed:
        parts += ["Missed (the top 3 instead: a bundle file, or a post's or site section's name):",
                  table(["bundle", "question", "expected", f"top {TOP} sources"], missed)]  # fmt: skip
    title = "Knowledge: recall@3 on the demo bundles' questions"
    return finish(args, title, command("knowledge_recall.py", argv or []), "\n\n".join(parts))


if __name__ == "__main__":
    main(sys.argv[1:])
