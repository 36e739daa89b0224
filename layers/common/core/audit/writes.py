"""Every authoring write passes here once: its ``Idempotency-Key`` is honoured and its audit entry is written in
the same transaction as its effect (``Also``), so a retry replays the first answer and the audit log holds an
entry exactly for each write that happened.

A write that found nothing to change (a PATCH of equal values, publishing a published post) writes its entry alone:
authoring.md's "every write appends an audit entry" counts requests that succeeded, not changes.

A write answers the route's wire model, never a status: the route declares that (``Author.status``, from
``core.http.author(app, status=...)``, as its ``@contract`` and its ``json_response`` say). The idempotency record
keeps the model's JSON (``wire()``, as ``json_response`` sends it) and that status; a retry gets the stored JSON
read back into the model, which serialises to the same bytes (tests/unit/audit/test_writes.py).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from core.audit.ports import AuditEntries
from core.audit.records import AuditRecord
from core.platform.idempotency import Claim, Idempotency, Replay
from core.platform.ids import new_id, now_iso
from core.platform.models import ApiModel
from core.platform.transactions import Also, Changed

CHANGED_TRIES = 8


@dataclass(frozen=True)
class Author:
    """Who writes, in which request (API Gateway's request id, which every audit entry names), the request's
    ``Idempotency-Key`` if it has one, and the status its route answers a success with (its ``@contract``'s): the
    idempotency record is completed in the write's own transaction, before the route answers, and keeps it, so a
    retry gets the same status from any version of the code that reads the record."""

    user_id: str
    request_id: str
    idempotency_key: str | None = None
    status: int = 200


def audit_record(author: Author, workspace_id: str, action: str, target: str, count: int | None = None) -> AuditRecord:
    """The entry of ``author``'s write ``action`` on ``target``: who, what, on what, in which request, when (and
    ``count``, for a write that removes many things: how many)."""
    return AuditRecord(
        id=new_id("aud"), workspace_id=workspace_id, action=action, actor_id=author.user_id, target=target,
        request_id=author.request_id, created_at=now_iso(), count=count,
    )  # fmt: skip


class Write:
    """One write under way: what its transaction carries besides its own items."""

    def __init__(self, author: Author, workspace_id: str, action: str, claim: Claim | None, audit: AuditEntries):
        self._author, self._workspace_id, self._action = author, workspace_id, action
        self._claim, self._audit = claim, audit

    def also(self, target: str, answer: ApiModel, *, count: int | None = None, workspace_id: str | None = None) -> Also:
        """The audit entry of this write on ``target`` and, with an Idempotency-Key, the record of its ``answer``.
        ``workspace_id``: the workspace whose log holds the entry, when the route does not name it (an invitation's
        acceptance learns it from the token)."""
        completion = self._claim.completion(answer) if self._claim else None
        return Also(audit=self.entry(target, count, workspace_id=workspace_id).audit, completion=completion)

    def entry(
        self, target: str, count: int | None, *, workspace_id: str | None = None, action: str | None = None
    ) -> Also:
        """The audit entry alone, for one of the several transactions of a write too large for one (an erasure):
        each records what it removed (``count``), and only the last completes the Idempotency-Key's record.
        ``action``: what happened instead of the write asked, when that is refused but leaves a change (an
        acceptance that finds its invitation void voids it: ``invitation.void``)."""
        record = audit_record(self._author, workspace_id or self._workspace_id, action or self._action, target, count)
        return Also(audit=self._audit.entry(record))

    def record(self, target: str, answer: ApiModel, *, count: int | None = None) -> None:
        """For a write outside DynamoDB (an object's deletion): its entry and record, right after it."""
        self._audit.commit(self.also(target, answer, count=count))

    def unchanged[R](self, target: str, answer: ApiModel, record: R) -> R:
        """A write that found ``record`` already as asked: its entry (and record) alone, then ``record``."""
        self.record(target, answer)
        return record


class Writes:
    def __init__(self, idempotency: Callable[[], Idempotency], audit: AuditEntries):
        self._idempotency = idempotency
        self._audit = audit

    def run[M: ApiModel](
        self,
        author: Author,
        workspace_id: str,
        action: str,
        *,
        on: str,
        request: BaseModel | dict[str, Any] | None,
        answer: type[M],
        work: Callable[[Write], M],
    ) -> M:
        """``work`` once per Idempotency-Key (scoped to the caller, the action and ``on``, the route's target): its
        answer, the route's wire model ``answer``; a retry's is the first one, read back from its record."""
        body = request.model_dump_json() if isinstance(request, BaseModel) else json.dumps(request, sort_keys=True)
        outcome = self._idempotency().run_claimed(
            author.idempotency_key, scope=f"{author.user_id}|{action}|{workspace_id}|{on}", request=body,
            status=author.status, work=lambda claim: work(Write(author, workspace_id, action, claim, self._audit)),
        )  # fmt: skip
        return answer.model_validate(outcome.body) if isinstance(outcome, Replay) else outcome


def until_unchanged[T](attempt: Callable[[], T]) -> T:
    """``attempt()``, read and applied again while another write changed what it read (``Changed``), with a short
    jittered wait between tries; the last refusal is raised (409) when the record keeps moving."""
    for n in range(CHANGED_TRIES):
        try:
            return attempt()
        except Changed:
            if n == CHANGED_TRIES - 1:
                raise
            time.sleep(random.uniform(0, 0.01 * 2**n))  # noqa: S311 - jitter, not a secret
    raise AssertionError("unreachable")
