"""The owner's answers (authoring.md, "The owner's answers"): where the documents do not answer, the owner does.

Every write goes through ``Writes.run`` (its Idempotency-Key honoured, its audit entry ``answer.create``,
``answer.update`` or ``answer.delete`` in the write's own transaction) and then queues the agent for the knowledge
worker, as an item's write does: the answer is a passage of the agent's next index.

``POST`` takes ``{question, answer}`` or ``{fromTurn, answer}``: the question is then that turn's prompt, read from
its receipt (``main_table.turn_receipt``), which keeps the prompt only when the workspace stores conversations and
only for 8 days; any other turn (unknown, another agent's, older, without a prompt) is the same 404.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from core.answers.models import Answer
from core.answers.ports import AnswerReader, AnswerWriter
from core.answers.records import MAX_QUESTION, AnswerRecord, TurnPrompt
from core.answers.writer_models import AnswerCreate, AnswerEnvelope, AnswerPage, AnswerQuery, AnswerUpdate
from core.audit.writes import Author, Write, Writes, until_unchanged
from core.platform import cursors, together
from core.platform import main_table as keys
from core.platform.envelopes import Empty
from core.platform.errors import NotFound, ValidationFailed
from core.platform.ids import new_id, now_iso
from core.platform.retention import (
    RECEIPT_DAYS,  # a turn's receipt is kept this long: a ``fromTurn`` older than it is gone
)
from core.platform.write_fields import changes
from core.workspaces.access import AuthoringAccess, found

TURN_GONE = "Turn not found"
_SORT_KEY = re.compile(r"^ANSWER#ans_[0-9A-Z]{26}$")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def answer_view(record: AnswerRecord) -> Answer:
    return Answer.from_record(record)


def decode(cursor: str) -> str:
    """The sort key the cursor starts after; 400 for anything ``cursors.encode`` did not make of one."""
    sort_key = cursors.decode(cursor)
    if not _SORT_KEY.match(sort_key):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return sort_key


def question_of(prompt: str) -> str:
    """A visitor's prompt as an answer's question: on one line, at most ``MAX_QUESTION`` characters (cut at a word,
    with an ellipsis; a prompt may be 4,000 characters, a question 500)."""
    text = " ".join(_CONTROLS.sub(" ", prompt).split())
    if len(text) <= MAX_QUESTION:
        return text
    cut = text[: MAX_QUESTION - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut).rstrip() + "…"


class AnswerService:
    def __init__(
        self,
        access: AuthoringAccess,
        reader: AnswerReader,
        answers: AnswerWriter,
        writes: Writes,
        notify: Callable[[str, str], None],
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self._access = access
        self._reader = reader
        self._answers = answers
        self._writes = writes
        self._notify = notify  # the knowledge worker reads the agent again (core.platform.jobs.reread_agent)
        self._now = now  # a receipt's age is read from the clock: its TTL removes it late

    def list(self, user_id: str, workspace_id: str, agent_id: str, query: AnswerQuery) -> AnswerPage:
        """Newest first; one answer more than the page is read, so ``nextCursor`` is null exactly on the last page.
        The access check (with the agent: the tenant check) and the page's Query go out together."""

        def newest() -> list[AnswerRecord]:  # a bad cursor is refused after the check: a stranger learns nothing
            after = decode(query.cursor) if query.cursor is not None else None
            return self._reader.newest(agent_id, query.limit + 1, after)

        _, read = together.checked_then_read(lambda: self._access.member(user_id, workspace_id, agent_id), newest)
        records = read()
        shown = records[: query.limit]
        more = len(records) > query.limit
        last = keys.answer(agent_id, shown[-1].id)["sk"] if shown else ""
        return AnswerPage(answers=[answer_view(r) for r in shown], next_cursor=cursors.encode(last) if more else None)

    def create(self, author: Author, workspace_id: str, agent_id: str, request: AnswerCreate) -> AnswerEnvelope:
        turn_id = request.from_turn
        access, receipt = together.run(  # the receipt beside the access check, used only once it passed
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._reader.receipt(agent_id, turn_id) if turn_id is not None else None,
        )
        access.result()
        if request.question is not None and turn_id is not None:
            raise ValidationFailed("fromTurn: give question or fromTurn, not both")
        if request.question is None:
            if turn_id is None:
                raise ValidationFailed("question: required (or fromTurn: a turn whose prompt is the question)")
            question = question_of(self._prompt(workspace_id, receipt.result()))
        else:
            question = request.question
        now = now_iso()
        answer = AnswerRecord(id=new_id("ans"), agent_id=agent_id, question=question, answer=request.answer,
                              created_at=now, updated_at=now)  # fmt: skip

        def work(write: Write) -> AnswerEnvelope:  # not run for a retry: it replays the first answer
            envelope = AnswerEnvelope(answer=answer_view(answer))
            self._answers.create(workspace_id, answer, also=write.also(f"answer:{answer.id}", envelope))
            self._notify(workspace_id, agent_id)
            return envelope

        return self._writes.run(author, workspace_id, "answer.create", on=agent_id, request=request,
                                answer=AnswerEnvelope, work=work)  # fmt: skip

    def update(
        self, author: Author, workspace_id: str, agent_id: str, answer_id: str, request: AnswerUpdate
    ) -> AnswerEnvelope:
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._reader.get(agent_id, answer_id),
        )
        wanted = changes(request)

        def work(write: Write) -> AnswerEnvelope:
            wrote: list[AnswerRecord] = []

            def attempt() -> AnswerRecord:
                old = found(read(), "Answer")
                new = old.model_copy(update=wanted)
                if new == old:
                    return write.unchanged(f"answer:{answer_id}", AnswerEnvelope(answer=answer_view(old)), old)
                new = new.model_copy(update={"updated_at": now_iso()})
                also = write.also(f"answer:{answer_id}", AnswerEnvelope(answer=answer_view(new)))
                wrote.append(self._answers.replace(workspace_id, old, new, also=also))
                return wrote[-1]

            stored = until_unchanged(attempt)
            if wrote:
                self._notify(workspace_id, agent_id)
            return AnswerEnvelope(answer=answer_view(stored))

        return self._writes.run(author, workspace_id, "answer.update", on=answer_id, request=request,
                                answer=AnswerEnvelope, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str, answer_id: str) -> Empty:
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._reader.get(agent_id, answer_id),
        )

        def work(write: Write) -> Empty:
            def attempt() -> None:
                answer = found(read(), "Answer")
                self._answers.delete(workspace_id, answer, also=write.also(f"answer:{answer_id}", Empty()))

            until_unchanged(attempt)
            self._notify(workspace_id, agent_id)
            return Empty()

        return self._writes.run(author, workspace_id, "answer.delete", on=answer_id, request=None, answer=Empty,
                                work=work)  # fmt: skip

    def _prompt(self, workspace_id: str, receipt: TurnPrompt | None) -> str:
        """The turn's prompt; 404 ``Turn not found`` for a turn gone, of another workspace, past its 8 days, or
        whose prompt was not kept (the workspace does not store conversations, or the visitor was erased)."""
        if receipt is None or receipt.workspace_id != workspace_id or not receipt.prompt:
            raise NotFound(TURN_GONE)
        created = datetime.fromisoformat(receipt.created_at)
        if self._now() - created > timedelta(days=RECEIPT_DAYS):
            raise NotFound(TURN_GONE)
        return receipt.prompt
