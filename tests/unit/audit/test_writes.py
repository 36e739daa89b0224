"""core.audit.writes.Writes over in-memory idempotency records and audit log: a write answers the route's wire model
(never a status), its record keeps the model's JSON and the status the route declared (``Author.status``), and a
retry answers the very bytes of the first answer, read back from the record."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from core.agents.records import DEFAULT_BEHAVIOUR
from core.agents.writer_models import AgentEnvelope, WrapEnvelope
from core.audit.records import AuditRecord
from core.audit.writes import Author, Write, Writes
from core.objects.writer_models import UploadTicket
from core.platform.envelopes import Deleted, Empty
from core.platform.idempotency import Idempotency, Replay
from core.platform.models import ApiModel
from core.platform.rest.responses import json_response
from core.platform.transactions import Also
from core.posts.writer_models import PostEnvelope
from core.workflows.writer_models import WorkflowEnvelope

NOW = "2026-01-01T00:00:00.000Z"


class FakeRecords:
    """The idempotency records in memory, kept as ``IdempotencyStore`` keeps them (the body as JSON text)."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}

    def claim(self, key_hash: str, request_hash: str, attempt: str) -> tuple[str, Replay | None]:
        record = self.items.setdefault(key_hash, {"requestHash": request_hash, "state": "IN_PROGRESS",
                                                  "attempt": attempt})  # fmt: skip
        if record["attempt"] == attempt:
            return attempt, None
        assert (record["requestHash"], record["state"]) == (request_hash, "COMPLETED")
        return attempt, Replay(record["status"], json.loads(record["body"]), record["attempt"])

    def completion(self, key_hash: str, attempt: str, status: int, body: Any) -> dict[str, Any]:
        return {"key": key_hash, "status": status, "body": json.dumps(body)}

    def complete(self, key_hash: str, attempt: str, status: int, body: Any) -> None:
        self.apply(self.completion(key_hash, attempt, status, body))

    def release(self, key_hash: str, attempt: str) -> None:
        self.items.pop(key_hash, None)

    def apply(self, completion: Any) -> None:
        self.items[completion["key"]] |= {"state": "COMPLETED", "status": completion["status"],
                                          "body": completion["body"]}  # fmt: skip


class FakeAudit:
    """The audit log in memory; ``commit`` also applies the record's completion, as the write's transaction does."""

    def __init__(self, records: FakeRecords) -> None:
        self.records = records
        self.entries: list[AuditRecord] = []

    def entry(self, record: AuditRecord) -> dict[str, Any]:
        return {"entry": record}

    def commit(self, also: Also) -> None:
        assert also.audit is not None
        self.entries.append(also.audit["entry"])
        if also.completion is not None:
            self.records.apply(also.completion)


def writes() -> tuple[Writes, FakeRecords, FakeAudit]:
    records = FakeRecords()
    audit = FakeAudit(records)
    return Writes(lambda: Idempotency(records), audit), records, audit


# fmt: off
AGENT = {"agent": {
    "id": "prj_1", "slug": "cafe", "name": "Café ☕ \"quoted\"", "brandId": "brd_1", "activeWorkflowId": "wf_1",
    "postCount": 0, "itemCount": 3, "createdAt": NOW, "updatedAt": NOW,
    # What the API answers for an agent created without a behaviour: every field at its default.
    "behaviour": DEFAULT_BEHAVIOUR.model_dump(mode="json", by_alias=True),
}}
POST = {"post": {
    "id": "post_1", "key": "media/a.jpg", "kind": "carousel", "mediaType": "image", "title": None, "sub": "ü",
    "caption": "line\nbreak\u2028", "hashtags": ["a", "b"], "channels": [], "category": None, "width": 1080,
    "height": None, "createdAt": NOW, "pages": [{"key": "media/b.jpg", "mediaType": None, "width": 1, "height": 2,
    "order": 0}], "poster": "", "playable": "", "isVideo": False, "status": "draft", "updatedAt": NOW,
}}
WORKFLOW = {"workflow": {
    "id": "wf_1", "name": "Flow", "createdAt": NOW, "updatedAt": NOW,
    "suggestions": [{"text": "日本 😀", "weight": 0.1, "big": 2**60, "none": None, "nested": {"z": 1, "a": [1.5e-9]}}],
}}
ANSWERS: dict[str, Callable[[], ApiModel]] = {  # a wire model of each shape the writer answers, with awkward values
    "agent": lambda: AgentEnvelope.model_validate(AGENT),
    "post": lambda: PostEnvelope.model_validate(POST),
    "workflow": lambda: WorkflowEnvelope.model_validate(WORKFLOW),
    "wrap": lambda: WrapEnvelope(wrap={"z": 1, "a": {"<\u2028>": "😀", "f": 1e100, "t": True, "n": -0.0}}),
    "upload": lambda: UploadTicket(url="https://b.s3.amazonaws.com/", fields={"key": "w/a b.png", "x-amz": "é"},
                                   path="a b.png", expires_at=NOW),
    "empty": Empty,
    "deleted": Deleted,
}
# fmt: on


def run(writes: Writes, author: Author, answer: ApiModel, *, record: bool = True) -> tuple[ApiModel, int]:
    """The write of ``answer`` (its entry and record in its 'transaction' unless ``record`` is False), and how many
    times its work ran."""
    ran = []

    def work(write: Write) -> ApiModel:
        ran.append(1)
        if record:
            write.record("thing:1", answer)
        return answer

    made = writes.run(author, "ws_1", "thing.create", on="ws_1", request={"name": "x"}, answer=type(answer), work=work)
    return made, len(ran)


@pytest.mark.parametrize("shape", ANSWERS)
@pytest.mark.parametrize("record", [True, False])
def test_a_retry_answers_the_bytes_of_the_first_answer(shape: str, record: bool) -> None:
    service, records, audit = writes()
    author = Author("usr_1", "req-1", "key-1", status=201)
    first, ran = run(service, author, ANSWERS[shape](), record=record)
    assert ran == 1 and isinstance(first, type(ANSWERS[shape]()))
    [stored] = records.items.values()
    assert (stored["state"], stored["status"], json.loads(stored["body"])) == ("COMPLETED", 201, first.wire())

    again, ran = run(service, Author("usr_1", "req-2", "key-1", status=201), ANSWERS[shape]())
    assert ran == 0 and type(again) is type(first)
    assert json_response(again, status=201).body == json_response(first, status=201).body
    assert len(audit.entries) == (1 if record else 0)


def test_the_record_keeps_the_status_the_route_declared() -> None:
    service, records, _ = writes()
    run(service, Author("usr_1", "req-1", "key-1"), ANSWERS["agent"]())
    [stored] = records.items.values()
    assert stored["status"] == 200  # Author's default, as a route's @contract


def test_without_a_key_the_work_runs_every_time_and_nothing_is_recorded() -> None:
    service, records, audit = writes()
    for request_id in ("req-1", "req-2"):
        answer = ANSWERS["agent"]()
        made, ran = run(service, Author("usr_1", request_id), answer)
        assert (made, ran) == (answer, 1)
    assert records.items == {} and [e.request_id for e in audit.entries] == ["req-1", "req-2"]
