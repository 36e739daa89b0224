"""``python -m ops shard-ledger (--email E | --account ID) --shards S``: give a busy billed account S balance shards.

One balance item takes ~250 chat turns a second (docs/ledger.md, "Shards"); an account whose agents take more is
given S shard books, each with its own balance, holds and entries, and takes ~240 turns a second per shard
(bench/ledger_shards.py). Nothing moves at once: the first reserve of each shard leases it credit from the main
balance. Shards only grow (a hold names its book and every reader sums books 1..S): a smaller S, or 0, is refused,
and a sharded account costs only a lease now and then while quiet. Re-running with the same S changes nothing.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from core.credits.shards import MAX_SHARDS
from core.credits.store import LedgerStore
from core.identity.store import UserStore


def run(ledger: LedgerStore, users: UserStore, *, email: str | None, account: str | None, shards: int) -> int:
    """Exit status: 0 done (or already so), 1 no such user, 2 a refused count."""
    if account is None:
        user = users.find_by_email(email or "")
        if user is None:
            print(f"no user with e-mail {email} (they sign in once first)", file=sys.stderr)
            return 1
        account = user.id
    try:
        before = ledger.set_shards(account, shards)
    except ValueError as refused:
        print(f"shard-ledger: {refused} (1 to {MAX_SHARDS}, never fewer than the account has)", file=sys.stderr)
        return 2
    print(json.dumps({"accountId": account, "shards": shards, "before": before}))
    return 0


def main(args: Any, dynamodb: Any, tables: dict[str, str]) -> int:
    return run(
        LedgerStore(dynamodb, tables["ledger"]), UserStore(dynamodb, tables["main"]),
        email=args.email, account=args.account, shards=args.shards,
    )  # fmt: skip
