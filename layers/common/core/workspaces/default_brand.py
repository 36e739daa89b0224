"""The workspace's one default brand, said twice: by the workspace's ``defaultBrandId`` and by the brands'
``isDefault``. Every write that moves it (the workspace's settings, a brand made the default) moves both in its
one transaction with these steps, so exactly one brand is the default whatever runs at the same time."""

from __future__ import annotations

from core.platform import main_table as keys
from core.platform.transactions import EXISTS, Transaction


def swap_default_flags(tx: Transaction, workspace_id: str, old_id: str, new_id: str, *, promote: bool) -> None:
    """``isDefault`` off on the old default and (``promote``) on the new one, which must exist (step ``brand``).
    A write that already writes the new brand sets its flag itself: one item appears once per transaction.
    Each flag moves its brand's version: an edit of that brand read before the move would otherwise write back
    the flag it read (two defaults, or none); conditioned on the version, it reads again instead."""
    if old_id and old_id != new_id:
        tx.update(keys.brand(workspace_id, old_id), "SET isDefault = :no ADD version :one", condition=EXISTS,
                  values={":no": False, ":one": 1})  # fmt: skip
    if promote:
        tx.update(keys.brand(workspace_id, new_id), "SET isDefault = :yes ADD version :one", condition=EXISTS,
                  values={":yes": True, ":one": 1}, name="brand")  # fmt: skip


def move_default_brand(tx: Transaction, workspace_id: str, old_id: str, new_id: str) -> None:
    """A brand write making its brand the default: the workspace names it (if its default is still ``old_id``:
    step ``default``; the settings' version moves too) and the old default loses its flag."""
    tx.update(keys.workspace(workspace_id), "SET defaultBrandId = :new ADD version :one",
              condition="defaultBrandId = :old", values={":new": new_id, ":old": old_id, ":one": 1},
              name="default")  # fmt: skip
    swap_default_flags(tx, workspace_id, old_id, new_id, promote=False)
