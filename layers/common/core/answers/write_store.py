"""Answers as their authors write them: one item each in the agent's answers partition, counted on the agent.

The agent's ``answerCount`` moves in the answer's own transaction and caps it: a create is refused (409) once the
agent holds ``MAX_ANSWERS``, whatever creates run at the same time, so the knowledge worker's one Query of that
``Limit`` reads every answer.
"""

from __future__ import annotations

from typing import Any

from core.answers.records import MAX_ANSWERS, AnswerRecord
from core.platform import main_table as keys
from core.platform.dynamo import get_item
from core.platform.errors import Conflict, NotFound
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.platform.versions import count_on_agent, unchanged_since, versioned

AGENT_GONE = NotFound("Agent not found")
CHANGED = Changed("The answer changed while this request was applied; read it again")
FULL = f"The agent has {MAX_ANSWERS:,} answers, the most it may hold: delete one before adding another"
# The agent exists and holds fewer answers than the cap (an agent older than answers has no counter yet).
ROOM = "attribute_exists(pk) AND (attribute_not_exists(answerCount) OR answerCount < :cap)"


class _NoRoom(Conflict):
    """The create's agent step failed: told apart (gone or full) by one more read."""


class AnswerStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def create(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.put(keys.answer(answer.agent_id, answer.id) | answer.attributes(), condition=NEW)
        tx.update(keys.agent(workspace_id, answer.agent_id), "ADD answerCount :step", condition=ROOM,
                  values={":step": 1, ":cap": MAX_ANSWERS}, name="room")  # fmt: skip
        try:
            tx.carry(also).commit_or_raise(self._db, {"room": _NoRoom(FULL)})
        except _NoRoom:
            # One condition, two reasons: the agent went (404, as for every write to a deleted agent) or is full.
            if get_item(self._db, self._table, keys.agent(workspace_id, answer.agent_id), consistent=True) is None:
                raise NotFound(AGENT_GONE.message) from None
            raise Conflict(FULL) from None

    def replace(self, workspace_id: str, old: AnswerRecord, new: AnswerRecord, *, also: Also) -> AnswerRecord:
        stored = versioned(old.version, new)
        tx = Transaction(self._table)
        tx.put(keys.answer(old.agent_id, old.id) | stored.attributes(), condition=unchanged_since(old.version),
               values={":seen": old.version}, name="changed")  # fmt: skip
        tx.check(keys.agent(workspace_id, old.agent_id), EXISTS, name="agent")
        tx.carry(also).commit_or_raise(self._db, {"changed": CHANGED, "agent": AGENT_GONE})
        return stored

    def delete(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.delete(keys.answer(answer.agent_id, answer.id), condition=unchanged_since(answer.version),
                  values={":seen": answer.version}, name="changed")  # fmt: skip
        count_on_agent(tx, workspace_id, answer.agent_id, "answerCount", -1)
        tx.carry(also).commit_or_raise(self._db, {"changed": CHANGED, "agent": AGENT_GONE})
