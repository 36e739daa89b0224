"""The credit ledger: one balance item and immutable entries per account. See docs/data-model.md."""

from __future__ import annotations

from typing import Any

from ..ids import new_id, now_iso
from ..models.management import RefType
from .dynamo import to_item, translate_errors


def _account(account_id: str) -> str:
    return f"ACCT#{account_id}"


class LedgerRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def grant(self, account_id: str, amount: int, ref_type: RefType, ref_id: str, description: str) -> bool:
        """Add ``amount`` credits with one ledger entry, at most once per (refType, refId).

        One transaction: the balance update, the entry, and a marker item whose
        ``attribute_not_exists`` condition makes a retried grant a no-op. Returns
        whether this call applied the grant.
        """
        if amount <= 0:
            raise ValueError("a grant adds a positive amount")
        created_at = now_iso()
        entry_id = new_id("led")
        pk = _account(account_id)
        entry = {
            "pk": pk,
            "sk": f"ENTRY#{created_at}#{entry_id}",
            "id": entry_id,
            "accountId": account_id,
            "amountCredits": amount,
            "refType": ref_type,
            "refId": ref_id,
            "description": description,
            "createdAt": created_at,
        }
        marker = {"pk": pk, "sk": f"REF#{ref_type}#{ref_id}", "entryId": entry_id}
        with translate_errors("TransactWriteItems"):
            try:
                self._db.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": to_item(marker),
                                "ConditionExpression": "attribute_not_exists(pk)",
                            }
                        },
                        {"Put": {"TableName": self._table, "Item": to_item(entry)}},
                        {
                            "Update": {
                                "TableName": self._table,
                                "Key": to_item({"pk": pk, "sk": "BALANCE"}),
                                "UpdateExpression": "ADD available :amount SET updatedAt = :at",
                                "ExpressionAttributeValues": to_item({":amount": amount, ":at": created_at}),
                            }
                        },
                    ]
                )
            except self._db.exceptions.TransactionCanceledException as exc:
                reasons = exc.response.get("CancellationReasons", [])
                if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                    return False
                raise
        return True
