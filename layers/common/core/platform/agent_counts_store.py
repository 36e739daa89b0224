"""An agent's counters on a small item of their own beside the agent (``WS#<ws>`` / ``COUNTS#<agentId>``).

Every post, item and answer write moves a counter (``postCount``, ``itemCount``, ``answerCount``) in its own
transaction, and an edit checks that its agent still exists. On the agent's item, beside its wrap and site documents,
each such write was billed by the agent's size: a transaction bills an Update or a ConditionCheck for the whole item
(about 23 WRU a post write, about 150 beside a 64 KiB site document). The counters item is a few dozen bytes, so a
post write's cost no longer depends on the agent's documents (docs/decisions.md, "An agent's counters beside it").

The counters item is made with the agent in its create transaction and deleted in its delete transaction, so its
existence is the "agent exists" condition the writes check: nothing is written to a deleted agent.

An agent written before counters items has none, and carries its counts itself. The first write that finds no
counters item adopts the agent (``adopt``): one transaction puts the counters item with the agent's counts and
removes them from the agent, conditioned on the counts read, so none is lost or counted twice; then the write is
sent again. Readers add the agent's own counts to its item's (``counted``): exact before adoption, after it, and
for a count an older deployment still moved on the agent while a new one was rolling out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import batch_get, get_item
from core.platform.errors import DomainError
from core.platform.transactions import EXISTS, NEW, Changed, Transaction, refusal

COUNTERS = ("postCount", "itemCount", "answerCount")
AGENT_STEP = "agent"  # the step every counted write names: its failure is "no counters item"
ADOPT_ATTEMPTS = 5  # each failed attempt is a count moved on the agent meanwhile (an older deployment's write)


def count(tx: Transaction, workspace_id: str, agent_id: str, counter: str, step: int) -> None:
    """Move one of the agent's counters, conditioned on its counters item (step ``agent``)."""
    tx.update(keys.agent_counts(workspace_id, agent_id), f"ADD {counter} :step", condition=EXISTS,
              values={":step": step}, name=AGENT_STEP)  # fmt: skip


def check(tx: Transaction, workspace_id: str, agent_id: str) -> None:
    """That the agent still exists (its counters item does), for a write that moves no counter (an edit)."""
    tx.check(keys.agent_counts(workspace_id, agent_id), EXISTS, name=AGENT_STEP)


def new_counts(workspace_id: str, agent_id: str) -> dict[str, Any]:
    """The counters item of a new agent: every counter at zero."""
    return keys.agent_counts(workspace_id, agent_id) | {"agentId": agent_id} | dict.fromkeys(COUNTERS, 0)


def counted(agent: Mapping[str, Any], counts: Mapping[str, Any] | None) -> dict[str, Any]:
    """The agent as stored, with its counts as readers show them: its counters item's plus any it carries itself."""
    shown = dict(agent)
    for name in COUNTERS:
        total = int(agent.get(name, 0)) + int((counts or {}).get(name, 0))
        if name in agent or (counts is not None and name in counts):
            shown[name] = total
    return shown


def without_counts(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """An agent's attributes as its item stores them: the counters live on the counters item."""
    return {name: value for name, value in attributes.items() if name not in COUNTERS}


def get_counted(client: Any, table: str, workspace_id: str, agent_id: str) -> dict[str, Any] | None:
    """The agent with its counts (``counted``), both in one consistent BatchGetItem; None when there is no agent."""
    agent_key, counts_key = keys.agent(workspace_id, agent_id), keys.agent_counts(workspace_id, agent_id)
    found = {row["sk"]: row for row in batch_get(client, table, [agent_key, counts_key])}
    agent = found.get(agent_key["sk"])
    return counted(agent, found.get(counts_key["sk"])) if agent is not None else None


def has_counts(client: Any, table: str, workspace_id: str, agent_id: str) -> bool:
    return get_item(client, table, keys.agent_counts(workspace_id, agent_id), consistent=True) is not None


def adopt(client: Any, table: str, workspace_id: str, agent_id: str) -> bool:
    """Give an agent older than counters items its item (idempotent). False: there is no such agent."""
    for _ in range(ADOPT_ATTEMPTS):
        agent = get_item(client, table, keys.agent(workspace_id, agent_id), consistent=True)
        if agent is None:
            return False
        carried = {name: int(agent[name]) for name in COUNTERS if name in agent}
        tx = Transaction(table)
        tx.put(new_counts(workspace_id, agent_id) | carried, condition=NEW, name="made")
        # The agent still exists with exactly the counts read: a count moved meanwhile is read again, not lost.
        same = " AND ".join([EXISTS] + [f"#{n} = :{n}" if n in carried else f"attribute_not_exists(#{n})"
                                        for n in COUNTERS])  # fmt: skip
        tx.update(keys.agent(workspace_id, agent_id), "REMOVE " + ", ".join(f"#{n}" for n in COUNTERS),
                  condition=same, names={f"#{n}": n for n in COUNTERS},
                  values={f":{n}": v for n, v in carried.items()} or None, name="moved")  # fmt: skip
        failed = tx.commit(client)
        if failed in (None, "made"):  # adopted now, or already (by another write, or made with the agent)
            return True
    raise Changed("The agent changed while this request was applied; read it again")


def commit_counted(
    client: Any, table: str, tx: Transaction, *, workspace_id: str, agent_id: str, refusals: Mapping[str, DomainError]
) -> None:
    """``tx.commit_or_raise``, for a write with a counted step (``count``/``check``): when that step fails because
    the agent has no counters item yet, the agent is adopted and the write sent again (once: after adoption the
    step fails only for an agent deleted meanwhile, answered with ``refusals["agent"]``)."""
    failed = tx.commit(client)
    if failed == AGENT_STEP and adopt(client, table, workspace_id, agent_id):
        failed = tx.commit(client)
    if failed is not None:
        raise refusal(failed, refusals)
