"""Webhooks (authoring.md, "Webhooks: events sent to the owner's systems"): the owner's or admin's webhooks, their
secrets, a test event, and each webhook's deliveries with a manual retry. Members get 403, anyone else 404.

Every write goes through ``Writes.run`` (its Idempotency-Key honoured, its audit entry ``webhook.create``,
``webhook.update``, ``webhook.delete``, ``webhook.rotate``, ``webhook.test`` or ``webhook.retry`` in the write's own
transaction). The secret is in two answers only, create's and rotate's (and so in their idempotency records, which
replay it to a client that lost the answer); never in a listing, a PATCH's answer or a log line.

A URL is checked when saved (``addresses.check_url``: https, and every address its host resolves to public) and the
delivery worker checks the address it connects to again at each attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.platform import cursors, together
from core.platform import main_table as keys
from core.platform.envelopes import Empty
from core.platform.errors import Conflict, ValidationFailed
from core.platform.ids import iso, new_id
from core.platform.write_fields import changes
from core.webhooks import signing
from core.webhooks.ports import DeliveryQueue, StoredWebhooks
from core.webhooks.records import DELIVERY_DAYS, DeliveryRecord, WebhookRecord
from core.webhooks.writer_models import (
    Delivery,
    DeliveryPage,
    DeliveryQuery,
    DeliveryStarted,
    Webhook,
    WebhookCreate,
    WebhookCreated,
    WebhookEnvelope,
    WebhookList,
    WebhookSecret,
    WebhookUpdate,
)
from core.workspaces.access import AuthoringAccess, found

TEST_EVENT = "webhook.test"
TEST_MESSAGE = "A test event: this webhook is set up"
DISABLED = "The webhook is disabled: enable it (PATCH enabled: true) before sending to it"
_SORT_KEY = re.compile(r"^DLV#dlv_[0-9A-Z]{26}$")


def webhook_view(record: WebhookRecord) -> Webhook:
    return Webhook.from_record(record)


def delivery_view(record: DeliveryRecord) -> Delivery:
    return Delivery.from_record(record)


def decode(cursor: str) -> str:
    """The sort key the cursor starts after; 400 for anything ``cursors.encode`` did not make of one."""
    sort_key = cursors.decode(cursor)
    if not _SORT_KEY.match(sort_key):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return sort_key


class WebhookService:
    def __init__(
        self,
        access: AuthoringAccess,
        webhooks: StoredWebhooks,
        writes: Writes,
        queue: Callable[[], DeliveryQueue],
        check_url: Callable[[str], None],
        *,
        cap: int,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self._access = access
        self._webhooks = webhooks
        self._writes = writes
        self._queue = queue  # made on first use: only test and retry send
        self._check_url = check_url  # addresses.check_url with the deployment's WEBHOOK_ALLOW_LOCAL
        self._cap = cap  # WEBHOOKS_MAX
        self._now = now

    def list(self, user_id: str, workspace_id: str) -> WebhookList:
        access, listed = together.run(
            lambda: self._access.writer(user_id, workspace_id), lambda: self._webhooks.webhooks(workspace_id)
        )
        access.result()
        return WebhookList(webhooks=[webhook_view(w) for w in sorted(listed.result(), key=lambda w: w.id)])

    def create(self, author: Author, workspace_id: str, request: WebhookCreate) -> WebhookCreated:
        self._access.writer(author.user_id, workspace_id)
        self._check_url(request.url)
        now = iso(self._now())
        webhook = WebhookRecord(id=new_id("whk"), workspace_id=workspace_id, url=request.url, events=request.events,
                                description=request.description, secret=signing.new_secret(), created_at=now,
                                updated_at=now)  # fmt: skip

        def work(write: Write) -> WebhookCreated:  # not run for a retry: it replays the first answer
            answer = WebhookCreated(webhook=webhook_view(webhook), secret=webhook.secret)
            self._webhooks.create(webhook, self._cap, also=write.also(f"webhook:{webhook.id}", answer))
            return answer

        return self._writes.run(author, workspace_id, "webhook.create", on=workspace_id, request=request,
                                answer=WebhookCreated, work=work)  # fmt: skip

    def update(self, author: Author, workspace_id: str, webhook_id: str, request: WebhookUpdate) -> WebhookEnvelope:
        read = self._checked_then_read(author, workspace_id, webhook_id)
        wanted = changes(request)
        if "url" in wanted:
            self._check_url(wanted["url"])
        if wanted.get("enabled") is not None:  # enabled or disabled by a person: no automatic reason stands
            wanted |= {"disabled_reason": None, "failing_since": None}

        def work(write: Write) -> WebhookEnvelope:
            def attempt() -> WebhookRecord:
                old = found(read(), "Webhook")
                new = old.model_copy(update=wanted)
                if new == old:
                    return write.unchanged(f"webhook:{webhook_id}", WebhookEnvelope(webhook=webhook_view(old)), old)
                new = new.model_copy(update={"updated_at": iso(self._now())})
                also = write.also(f"webhook:{webhook_id}", WebhookEnvelope(webhook=webhook_view(new)))
                return self._webhooks.update(old, new, also=also)

            return WebhookEnvelope(webhook=webhook_view(until_unchanged(attempt)))

        return self._writes.run(author, workspace_id, "webhook.update", on=webhook_id, request=request,
                                answer=WebhookEnvelope, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, webhook_id: str) -> Empty:
        read = self._checked_then_read(author, workspace_id, webhook_id)

        def work(write: Write) -> Empty:
            def attempt() -> None:
                webhook = found(read(), "Webhook")
                self._webhooks.delete(webhook, also=write.also(f"webhook:{webhook_id}", Empty()))

            until_unchanged(attempt)
            return Empty()

        return self._writes.run(author, workspace_id, "webhook.delete", on=webhook_id, request=None, answer=Empty,
                                work=work)  # fmt: skip

    def rotate(self, author: Author, workspace_id: str, webhook_id: str) -> WebhookSecret:
        """A new secret; the one it replaces signs too for 24 hours (a secret replaced earlier stops at once: at most
        two sign)."""
        read = self._checked_then_read(author, workspace_id, webhook_id)
        secret = signing.new_secret()

        def work(write: Write) -> WebhookSecret:
            def attempt() -> WebhookRecord:
                old = found(read(), "Webhook")
                now = self._now()
                new = old.model_copy(update={
                    "secret": secret, "previous_secret": old.secret, "updated_at": iso(now),
                    "previous_secret_until": int(now.timestamp()) + signing.ROTATION_SECONDS,
                })  # fmt: skip
                also = write.also(f"webhook:{webhook_id}", WebhookSecret(secret=secret))
                return self._webhooks.update(old, new, also=also)

            until_unchanged(attempt)
            return WebhookSecret(secret=secret)

        return self._writes.run(author, workspace_id, "webhook.rotate", on=webhook_id, request=None,
                                answer=WebhookSecret, work=work)  # fmt: skip

    def test(self, author: Author, workspace_id: str, webhook_id: str) -> DeliveryStarted:
        """A ``webhook.test`` event to this webhook alone, whatever its ``events``: its delivery is written pending and
        its message sent, and the worker delivers it as any other (202 ``{deliveryId}``; its state in deliveries)."""
        read = self._checked_then_read(author, workspace_id, webhook_id)
        webhook = found(read(), "Webhook")
        if not webhook.enabled:
            raise Conflict(DISABLED)
        now = self._now()
        at_ms = int(now.timestamp() * 1000)
        body = json.dumps({
            "type": TEST_EVENT, "timestamp": iso(now),
            "data": {"workspaceId": workspace_id, "webhookId": webhook_id, "message": TEST_MESSAGE},
        }, separators=(",", ":"), ensure_ascii=False)  # fmt: skip
        delivery = DeliveryRecord(
            id=new_id("dlv", at_ms), webhook_id=webhook_id, workspace_id=workspace_id, event_id=new_id("evt", at_ms),
            type=TEST_EVENT, body=body, next_attempt_at=iso(now), created_at=iso(now),
            expires_at=int((now + timedelta(days=DELIVERY_DAYS)).timestamp()),
        )  # fmt: skip

        def work(write: Write) -> DeliveryStarted:
            answer = DeliveryStarted(delivery_id=delivery.id)
            self._webhooks.add_delivery(delivery, also=write.also(f"webhook:{webhook_id}", answer))
            # After the commit: a message never names a delivery that is not there. Should the send fail, the
            # delivery stays pending and a retry (POST …/retry) sends it.
            self._queue().send(delivery.id, webhook_id, workspace_id)
            return answer

        return self._writes.run(author, workspace_id, "webhook.test", on=webhook_id, request=None,
                                answer=DeliveryStarted, work=work)  # fmt: skip

    def deliveries(self, user_id: str, workspace_id: str, webhook_id: str, query: DeliveryQuery) -> DeliveryPage:
        """Newest first, one page and a cursor (one delivery more than the page is read, so ``nextCursor`` is null
        exactly on the last page); ``status`` reads that status's rows of ``gsi1``. The access check, the webhook
        (in this workspace's partition: the tenant check of the webhook id) and the page go out together; the page is
        answered only once both passed."""

        def page() -> list[DeliveryRecord]:  # a bad cursor is refused after the checks: a stranger learns nothing
            after = decode(query.cursor) if query.cursor is not None else None
            return self._webhooks.deliveries(webhook_id, query.status, query.limit + 1, after)

        access, webhook, read = together.run(
            lambda: self._access.writer(user_id, workspace_id), lambda: self._webhooks.get(workspace_id, webhook_id),
            page,
        )  # fmt: skip
        access.result()
        found(webhook.result(), "Webhook")
        records = read.result()
        shown = records[: query.limit]
        more = len(records) > query.limit
        last = keys.delivery(webhook_id, shown[-1].id)["sk"] if shown else ""
        return DeliveryPage(deliveries=[delivery_view(r) for r in shown],
                            next_cursor=cursors.encode(last) if more else None)  # fmt: skip

    def retry(self, author: Author, workspace_id: str, webhook_id: str, delivery_id: str) -> Empty:
        """The delivery sent again now: pending, its next attempt now, and its message sent (202 ``{}``). A failed or
        pending one takes one more attempt; a delivered one is sent again with the same ``webhook-id`` (receivers
        that dedupe on it will ignore it, as with Svix's resend)."""
        access, webhook, delivery = together.run(
            lambda: self._access.writer(author.user_id, workspace_id),
            lambda: self._webhooks.get(workspace_id, webhook_id),
            lambda: self._webhooks.delivery(webhook_id, delivery_id),
        )  # fmt: skip
        access.result()
        if not found(webhook.result(), "Webhook").enabled:
            raise Conflict(DISABLED)
        first = [delivery.result()]

        def work(write: Write) -> Empty:
            def attempt() -> None:
                old = found(first.pop() if first else self._webhooks.delivery(webhook_id, delivery_id), "Delivery")
                new = old.model_copy(update={"status": "pending", "next_attempt_at": iso(self._now())})
                self._webhooks.requeue(old, new, also=write.also(f"delivery:{delivery_id}", Empty()))

            until_unchanged(attempt)
            self._queue().send(delivery_id, webhook_id, workspace_id)
            return Empty()

        return self._writes.run(author, workspace_id, "webhook.retry", on=delivery_id, request=None, answer=Empty,
                                work=work)  # fmt: skip

    def _checked_then_read(
        self, author: Author, workspace_id: str, webhook_id: str
    ) -> Callable[[], WebhookRecord | None]:
        """The writer's access check and the webhook, read together (the reader: that read, then fresh ones)."""
        _, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id),
            lambda: self._webhooks.get(workspace_id, webhook_id),
        )
        return read
