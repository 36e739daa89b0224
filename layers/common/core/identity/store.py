"""Users, their e-mail claims, sessions and magic-link tokens (main table). See docs/data-model.md."""

from __future__ import annotations

import time
from typing import Any

from core.identity.records import SessionRecord, UserRecord
from core.platform import main_table as keys
from core.platform.dynamo import StorageUnavailable, cancelled_by_condition, from_item, to_item, translate_errors


class UserStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def _get(self, key: dict[str, str]) -> dict[str, Any] | None:
        with translate_errors("GetItem"):
            item = self._db.get_item(TableName=self._table, Key=to_item(key), ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def get(self, user_id: str) -> UserRecord | None:
        found = self._get(keys.user(user_id))
        return UserRecord.model_validate(found) if found else None

    def find_by_email(self, email: str) -> UserRecord | None:
        claim = self._get(keys.email_claim(email))
        return self.get(claim["userId"]) if claim else None

    def create(self, user: UserRecord) -> UserRecord:
        """Create ``user`` unless its e-mail is taken; returns whoever owns the address now.

        The user and an ``EMAIL#`` claim are written in one transaction, so two
        concurrent first sign-ins of one address make exactly one user.
        """
        claim = keys.email_claim(user.email) | {"userId": user.id}
        index = {"gsi1pk": keys.email_claim(user.email)["pk"], "gsi1sk": "USER"}
        with translate_errors("TransactWriteItems"):
            try:
                self._db.transact_write_items(
                    TransactItems=[
                        {"Put": self._put_new(claim)},
                        {"Put": self._put_new(keys.user(user.id) | index | user.attributes())},
                    ]
                )
            except self._db.exceptions.TransactionCanceledException as exc:
                if cancelled_by_condition(exc, 0):
                    existing = self.find_by_email(user.email)
                    if existing:
                        return existing
                raise
        return user

    def _put_new(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"TableName": self._table, "Item": to_item(item), "ConditionExpression": "attribute_not_exists(pk)"}

    def set_active_workspace(self, user_id: str, workspace_id: str | None) -> None:
        with translate_errors("UpdateItem"):
            self._db.update_item(
                TableName=self._table,
                Key=to_item(keys.user(user_id)),
                UpdateExpression="SET activeWorkspaceId = :ws",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues=to_item({":ws": workspace_id}),
            )

    def set_plan(self, user_id: str, plan: str) -> None:
        with translate_errors("UpdateItem"):
            self._db.update_item(
                TableName=self._table,
                Key=to_item(keys.user(user_id)),
                UpdateExpression="SET #plan = :plan",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#plan": "plan"},
                ExpressionAttributeValues=to_item({":plan": plan}),
            )

    # --- magic-link tokens: stored by hash, used once (by the transaction that starts the session)

    def put_magic_token(self, token_hash: str, email: str, expires_at: int) -> None:
        item = keys.magic_token(token_hash) | {"email": email.lower(), "expiresAt": expires_at}
        with translate_errors("PutItem"):
            self._db.put_item(TableName=self._table, Item=to_item(item))

    def magic_token_email(self, token_hash: str) -> str | None:
        """The e-mail of a live token, without using it up; an expired token is deleted (it can never work)."""
        found = self._get(keys.magic_token(token_hash))
        if found is None:
            return None
        if found["expiresAt"] > time.time():
            email: str = found["email"]
            return email
        with translate_errors("DeleteItem"):
            self._db.delete_item(TableName=self._table, Key=to_item(keys.magic_token(token_hash)))
        return None

    def start_session_with_magic_token(self, token_hash: str, session: SessionRecord, cookie_hash: str) -> bool:
        """Use up the token and start ``session`` in one transaction; False if the token is gone or expired.

        One transaction, so no failure leaves a used link without a session (the user can retry) or
        a session without a used link; of two verifications of one token, only one passes the condition.
        """
        delete = {
            "TableName": self._table,
            "Key": to_item(keys.magic_token(token_hash)),
            "ConditionExpression": "attribute_exists(pk) AND expiresAt > :now",
            "ExpressionAttributeValues": to_item({":now": int(time.time())}),
        }
        items = [{"Delete": delete}, *self._session_puts(session, cookie_hash)]
        try:
            with translate_errors("TransactWriteItems"):
                try:
                    self._db.transact_write_items(TransactItems=items)
                except self._db.exceptions.TransactionCanceledException as exc:
                    if cancelled_by_condition(exc, 0):
                        return False
                    raise
        except StorageUnavailable:
            # The reply may be lost after the write applied (a read timeout): the session's id is new,
            # so its presence says the transaction happened. If this read fails too, the link may be
            # used up without the user's knowing it (two failures in a row): they request a new one.
            if self._get(keys.session(session.id)) is None:
                raise
        return True

    # --- sessions: one item by id (for the JWT's sid) and one by token hash (for the cookie)

    def _session_puts(self, session: SessionRecord, token_hash: str) -> list[dict[str, Any]]:
        ttl = {"expiresAt": session.expires_at}
        pointer = keys.session_token(token_hash) | {"sessionId": session.id, "userId": session.user_id} | ttl
        return [
            {"Put": self._put_new(keys.session(session.id) | session.attributes() | {"tokenHash": token_hash})},
            {"Put": self._put_new(pointer)},
        ]

    def create_session(self, session: SessionRecord, token_hash: str) -> None:
        with translate_errors("TransactWriteItems"):
            self._db.transact_write_items(TransactItems=self._session_puts(session, token_hash))

    def get_session(self, session_id: str) -> SessionRecord | None:
        found = self._get(keys.session(session_id))
        session = SessionRecord.model_validate(found) if found else None
        return session if session and session.expires_at > time.time() else None

    def get_session_by_token(self, token_hash: str) -> SessionRecord | None:
        pointer = self._get(keys.session_token(token_hash))
        return self.get_session(pointer["sessionId"]) if pointer else None

    def end_session(self, session_id: str) -> None:
        """Delete the session and its cookie pointer (idempotent)."""
        with translate_errors("DeleteItem"):
            old = self._db.delete_item(
                TableName=self._table, Key=to_item(keys.session(session_id)), ReturnValues="ALL_OLD"
            ).get("Attributes")
            if old and "tokenHash" in old:
                token_hash = from_item(old)["tokenHash"]
                self._db.delete_item(TableName=self._table, Key=to_item(keys.session_token(token_hash)))
