"""Answers as their authors write them: one item each in the agent's answers partition, counted beside the agent.

The agent's ``answerCount`` (on its counters item, ``core.platform.agent_counts_store``) moves in the answer's own
transaction and caps it: a create is refused (409) once the agent holds ``MAX_ANSWERS``, whatever creates run at the
same time, so the knowledge worker's one Query of that ``Limit`` reads every answer.
"""

from __future__ import annotations

from typing import Any

from core.answers.records import MAX_ANSWERS, AnswerRecord
from core.platform import agent_counts_store as counts
from core.platform import main_table as keys
from core.platform.errors import Conflict, NotFound
from core.platform.transactions import NEW, Also, Changed, Transaction, refusal
from core.platform.versions import unchanged_since, versioned

AGENT_GONE = NotFound("Agent not found")
CHANGED = Changed("The answer changed while this request was applied; read it again")
FULL = f"The agent has {MAX_ANSWERS:,} answers, the most it may hold: delete one before adding another"
# The agent exists (its counters item does) and holds fewer answers than the cap.
ROOM = "attribute_exists(pk) AND (attribute_not_exists(answerCount) OR answerCount < :cap)"


class AnswerStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def create(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.put(keys.answer(answer.agent_id, answer.id) | answer.attributes(), condition=NEW)
        tx.update(keys.agent_counts(workspace_id, answer.agent_id), "ADD answerCount :step", condition=ROOM,
                  values={":step": 1, ":cap": MAX_ANSWERS}, name="room")  # fmt: skip
        tx.carry(also)
        failed = tx.commit(self._db)
        # One condition, three reasons: the agent is full, went (404, as for every write to a deleted agent), or is
        # older than counters items (adopted, then the create is sent again).
        if failed == "room" and not counts.has_counts(self._db, self._table, workspace_id, answer.agent_id):
            if not counts.adopt(self._db, self._table, workspace_id, answer.agent_id):
                raise NotFound(AGENT_GONE.message)
            failed = tx.commit(self._db)
        if failed == "room":
            if not counts.has_counts(self._db, self._table, workspace_id, answer.agent_id):
                raise NotFound(AGENT_GONE.message)
            raise Conflict(FULL)
        if failed is not None:
            raise refusal(failed)

    def replace(self, workspace_id: str, old: AnswerRecord, new: AnswerRecord, *, also: Also) -> AnswerRecord:
        stored = versioned(old.version, new)
        tx = Transaction(self._table)
        tx.put(keys.answer(old.agent_id, old.id) | stored.attributes(), condition=unchanged_since(old.version),
               values={":seen": old.version}, name="changed")  # fmt: skip
        counts.check(tx, workspace_id, old.agent_id)
        self._commit(tx.carry(also), workspace_id, old.agent_id)
        return stored

    def delete(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.delete(keys.answer(answer.agent_id, answer.id), condition=unchanged_since(answer.version),
                  values={":seen": answer.version}, name="changed")  # fmt: skip
        counts.count(tx, workspace_id, answer.agent_id, "answerCount", -1)
        self._commit(tx.carry(also), workspace_id, answer.agent_id)

    def _commit(self, tx: Transaction, workspace_id: str, agent_id: str) -> None:
        counts.commit_counted(self._db, self._table, tx, workspace_id=workspace_id, agent_id=agent_id,
                              refusals={"changed": CHANGED, "agent": AGENT_GONE})  # fmt: skip
