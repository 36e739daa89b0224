"""A visitor's privacy request (authoring.md, "Conversations"): every turn the visitor stored with an agent is
erased, and the audit log records how many, never their text.

Everything the visitor stored is one Query (their thread items sort before their turns), then deleted in
transactions of at most ``BATCH`` items, each carrying an audit entry with the turns it erased: a visitor with
fewer than ``BATCH`` items (threads and turns) is one transaction and one entry. The thread items go first, so a
failure part way never leaves a listed thread whose turns are gone, and the entries' counts always add up to what
is gone; a retry erases the rest. Only the last transaction completes the ``Idempotency-Key``'s record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.audit.writes import Author, Write, Writes
from core.chat.conversation_models import Erasure
from core.chat.ports import ThreadErasure
from core.platform import main_table as keys
from core.workspaces.access import AuthoringAccess

BATCH = 98  # DynamoDB's 100 items a transaction, less the audit entry and the idempotency record's completion
ACTION = "conversation.erase"


class ConversationEraser:
    def __init__(self, access: AuthoringAccess, store: ThreadErasure, writes: Writes):
        self._access = access
        self._store = store
        self._writes = writes

    def erase(self, author: Author, workspace_id: str, agent_id: str, client: str) -> Erasure:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)  # 404, 403, 404 for another's agent
        target = f"conversations:{agent_id}/{client}"  # the visitor's salted hash, as the chat was given it

        def work(write: Write) -> Erasure:
            found = self._store.visitor_keys(agent_id, client)
            answer = Erasure(deleted=sum(map(is_turn(client), found)))
            if not found:
                write.record(target, answer, count=0)  # nothing stored: the request is still recorded
                return answer
            batches = [found[at : at + BATCH] for at in range(0, len(found), BATCH)]
            for batch in batches[:-1]:
                self._store.delete(batch, write.entry(target, sum(map(is_turn(client), batch))))
            last = batches[-1]
            self._store.delete(last, write.also(target, answer, count=sum(map(is_turn(client), last))))
            return answer

        return self._writes.run(author, workspace_id, ACTION, on=target, request={"client": client}, answer=Erasure,
                                work=work)  # fmt: skip


def is_turn(client: str) -> Callable[[dict[str, Any]], bool]:
    """Whether a key of the visitor's is a turn's (the rest are their thread items)."""
    turns = keys.visitor_prefix(client) + "TURN#"
    return lambda key: key["sk"].startswith(turns)
