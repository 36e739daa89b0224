"""Optimistic writes and the counters beside them.

A record carries a ``version``; a write conditions on the one it read and moves it on. Counters (a brand's
``agentCount``) are added to without touching the version, so an agent created meanwhile never makes a brand's
rename fail, while two renames of one brand cannot both apply to the same reading. An agent's own counters live on
an item of their own (``core.platform.agent_counts_store``), outside the agent's version altogether.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from core.platform.transactions import Transaction


def versioned[R: BaseModel](seen: int, new: R) -> R:
    """``new`` as stored over the version ``seen``: one version further."""
    return new.model_copy(update={"version": seen + 1})


def unchanged_since(seen: int) -> str:
    """The condition that the item still exists with the version ``:seen`` (records written before versions count
    as 0). "No version" alone would also hold for an item deleted since it was read: an edit racing a deletion
    would write it again (a post back in the feed, or a brand, agent or workspace item of the edited fields only)."""
    return (
        "(attribute_exists(pk) AND (attribute_not_exists(version) OR version = :seen))"
        if seen == 0
        else "version = :seen"
    )


def update_fields(tx: Transaction, key: Mapping[str, str], fields: Mapping[str, Any], seen: int) -> None:
    """SET ``fields`` (attribute name → value; None removes it) and the next version, if still at ``seen``
    (step ``changed``). Only these attributes change: counters moved meanwhile are kept."""
    kept = {name: value for name, value in fields.items() if value is not None}
    expression = "SET " + ", ".join([f"#{name} = :{name}" for name in kept] + ["version = :next"])
    if removed := [name for name, value in fields.items() if value is None]:
        expression += " REMOVE " + ", ".join(f"#{name}" for name in removed)
    tx.update(
        key, expression, condition=unchanged_since(seen), name="changed",
        names={f"#{name}": name for name in fields},
        values={f":{name}": value for name, value in kept.items()} | {":seen": seen, ":next": seen + 1},
    )  # fmt: skip


# A brand or workflow no agent uses (its ``agentCount`` counter is absent or zero): the condition of its deletion.
NOT_IN_USE = "attribute_not_exists(agentCount) OR agentCount = :zero"
