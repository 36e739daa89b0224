"""A visitor's privacy request (authoring.md, "Conversations"): every turn the visitor stored with an agent is
erased, with what their turns left besides (issue 40), and the audit log records how many turns, never their text.

Everything the visitor stored is one Query (their thread items sort before their turns), their ratings another (the
``VISITOR#<client>#`` rows of the agent's feedback partition), issued together. Each stored turn goes with its receipt
and its unanswered row (keyed by its id and ``createdAt``: deleting one that is not there is a no-op), each rating
with its three rows and its turn's receipt (which holds the rating's comment): so a rating goes even where the
workspace does not store conversations. They are deleted in transactions of at most ``BATCH`` items, never splitting
a turn or a rating, each carrying an audit entry with the turns it erased: a visitor with few items is one
transaction and one entry. The thread items go first, so a failure part way never leaves a listed thread whose turns
are gone, and the entries' counts always add up to what is gone; a retry erases the rest. Only the last transaction
completes the ``Idempotency-Key``'s record.

Before any of it, the day's question items their turns counted lose the visitor's text (``question``, ``client``,
``turnId``: the latest asking's) where they are still the latest asker; the counts stay, as numbers of nobody. Those
items are keyed by the turn's day and prompt, which the turn's deletion takes with it, so they go first: a failure
there fails the request with nothing deleted, and the retry does it again (each update is conditioned on the
asker, so again changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from core.audit.writes import Author, Write, Writes
from core.chat.conversation_models import Erasure
from core.chat.ports import ThreadErasure
from core.insights.questions import question_key
from core.platform import main_table as keys
from core.platform import together
from core.platform.retention import INSIGHTS_DAYS, day_of
from core.workspaces.access import AuthoringAccess

BATCH = 98  # DynamoDB's 100 items a transaction, less the audit entry and the idempotency record's completion
ACTION = "conversation.erase"

Key = dict[str, Any]


class ConversationEraser:
    def __init__(
        self, access: AuthoringAccess, store: ThreadErasure, writes: Writes,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):  # fmt: skip
        self._access = access
        self._store = store
        self._writes = writes
        self._now = now

    def erase(self, author: Author, workspace_id: str, agent_id: str, client: str) -> Erasure:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)  # 404, 403, 404 for another's agent
        target = f"conversations:{agent_id}/{client}"  # the visitor's salted hash, as the chat was given it

        def work(write: Write) -> Erasure:
            stored, rated = together.run(lambda: self._store.visitor_keys(agent_id, client),
                                         lambda: self._store.visitor_ratings(agent_id, client))  # fmt: skip
            found, ratings = stored.result(), rated.result()
            turns = [key for key in found if is_turn(client)(key)]
            self._forget_questions(agent_id, client, turns)
            groups = [[key] for key in found if not is_turn(client)(key)]  # the thread items: first
            groups += [turn_group(agent_id, key) for key in turns]
            groups += rating_groups(agent_id, client, ratings, {key["sk"].rsplit("#", 1)[1] for key in turns})
            answer = Erasure(deleted=len(turns))
            if not groups:
                write.record(target, answer, count=0)  # nothing stored: the request is still recorded
                return answer
            batches = packed(groups, BATCH)
            for batch in batches[:-1]:
                self._store.delete(batch, write.entry(target, sum(map(is_turn(client), batch))))
            last = batches[-1]
            self._store.delete(last, write.also(target, answer, count=sum(map(is_turn(client), last))))
            return answer

        return self._writes.run(author, workspace_id, ACTION, on=target, request={"client": client}, answer=Erasure,
                                work=work)  # fmt: skip

    def _forget_questions(self, agent_id: str, client: str, turns: list[Key]) -> None:
        """The visitor's text off the question items of their turns' days, a few at a time. Only days still counted:
        an older day's items have expired (``INSIGHTS_DAYS``) and no reader reads that far back."""
        oldest = (self._now() - timedelta(days=INSIGHTS_DAYS)).date().isoformat()
        items = {
            (day, question_key(turn.get("prompt") or "")): None
            for turn in turns
            if (day := day_of(turn.get("createdAt") or "")) >= oldest
        }
        pending = [keys.question(agent_id, day, asked) for day, asked in items]
        for at in range(0, len(pending), together.MAX_THREADS):
            chunk = pending[at : at + together.MAX_THREADS]
            calls = [lambda key=key: self._store.forget_asker(key, client) for key in chunk]
            for future in together.run(*calls):
                future.result()  # a failure fails the request before anything is deleted: the retry redoes these


def is_turn(client: str) -> Callable[[Key], bool]:
    """Whether a key of the visitor's is a stored turn's (the rest are their thread items and what their turns and
    ratings left in other partitions)."""
    turns = keys.visitor_prefix(client) + "TURN#"
    return lambda key: key["sk"].startswith(turns) and key["pk"].endswith("#CONVERSATIONS")


def turn_group(agent_id: str, turn: Key) -> list[Key]:
    """A stored turn with its receipt and its unanswered row (if it had one), deleted together."""
    turn_id = turn["sk"].rsplit("#", 1)[1]
    return [
        {"pk": turn["pk"], "sk": turn["sk"]},
        keys.turn_receipt(agent_id, turn_id),
        keys.unanswered(agent_id, turn.get("createdAt") or "", turn_id),
    ]


def rating_groups(agent_id: str, client: str, ratings: Iterable[Key], with_turns: set[str]) -> list[list[Key]]:
    """Each rating's rows (the visitor's row last: it is what finds the others) and its turn's receipt, unless that
    goes with the stored turn. Both rating rows are named, whichever the rating was: deleting the absent one is a
    no-op, and no attribute of the row is trusted to find the other."""
    prefix, groups, receipts = keys.visitor_prefix(client), [], set(with_turns)
    for row in ratings:
        rated_at, _, turn_id = row["sk"].removeprefix(prefix).rpartition("#")
        up, down = (keys.feedback_rows(agent_id, rated_at, turn_id, rating, client) for rating in ("up", "down"))
        group = [up[0], up[1], down[1], up[2]]
        if turn_id not in receipts:  # a transaction may name an item once
            receipts.add(turn_id)
            group.append(keys.turn_receipt(agent_id, turn_id))
        groups.append(group)
    return groups


def packed(groups: list[list[Key]], size: int) -> list[list[Key]]:
    """The groups, in order, in batches of at most ``size`` items, none split across two."""
    batches: list[list[Key]] = [[]]
    for group in groups:
        if batches[-1] and len(batches[-1]) + len(group) > size:
            batches.append([])
        batches[-1].extend(group)
    return batches
