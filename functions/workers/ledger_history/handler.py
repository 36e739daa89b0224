"""LedgerTable's stream -> the history numberer: each new ledger entry gets its place in its account's history.

The event source mapping (template.yaml, ``LedgerHistoryFunction``) passes only INSERTs of ``ENTRY#`` items. The
entries of a batch are grouped by account and numbered together (``core.credits.history_store``): one transaction
per 33 entries. An account that fails (a throttled write) has its records reported in ``batchItemFailures``; Lambda
hands the stream over again from the first of them, retrying until it succeeds (``MaximumRetryAttempts: -1``), and
the numberer's conditions number nothing twice. An account not caught up within the call's budget (a first,
backfilling sweep of a long ledger) is reported the same way, so the next call goes on where this one stopped.
"""

import logging

from core.credits import history
from core.credits import providers as credits
from core.platform import observability
from core.platform.dynamo import from_item

logger = logging.getLogger("ledger_history")


def entries_by_account(records: list[dict]) -> dict[str, list[tuple[str, dict]]]:
    """Each account's (sequence number, entry) of the batch, in stream order."""
    found: dict[str, list[tuple[str, dict]]] = {}
    for record in records:
        change = record.get("dynamodb") or {}
        image = from_item(change.get("NewImage") or change.get("Keys") or {})
        located = history.book_of(str(image.get("pk", "")))
        if located is None or not str(image.get("sk", "")).startswith(history.ENTRY_PREFIX):
            continue  # the filter passes only entries; anything else is no history's
        found.setdefault(located[0], []).append((str(change.get("SequenceNumber", "")), image))
    return found


@observability.observed("workers", routed=("ledger_history",))
def lambda_handler(event, context):
    failed: list[str] = []
    numbered = 0
    for account, entries in entries_by_account(event.get("Records") or []).items():
        try:
            done = credits.history().number(account, [image for _, image in entries])
        except Exception:
            logger.exception("numbering failed", extra={"accountId": account})
            failed += [sequence for sequence, _ in entries]
            continue
        numbered += done.numbered
        if not done.caught_up:  # handed over again: the next call numbers on from the marks
            failed += [sequence for sequence, _ in entries]
    logger.info("history numbered", extra={"numbered": numbered, "failed": len(failed)})
    return {"batchItemFailures": [{"itemIdentifier": sequence} for sequence in failed]}
