"""A webhook's secret: shown by create and rotate only, never in another answer nor in a log line; after a rotation
both secrets sign for 24 hours, verified with the published ``standardwebhooks`` library (not our own code)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook as Verifier
from standardwebhooks.webhooks import WebhookVerificationError

from core.webhooks import signing
from tests.support.authoring import Studio
from tests.support.webhooks import DELIVERIES, LIST, ROTATE, TEST, UPDATE, create, stored_webhook


def _headers(message_id: str, timestamp: int, signature: str) -> dict[str, str]:
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": signature}


def test_rotation_keeps_both_secrets_signing_for_24_hours(studio: Studio) -> None:
    created = create(studio)
    webhook_id, first = created["webhook"]["id"], created["secret"]
    rotated = studio.ok(ROTATE, webhook_id=webhook_id)
    assert set(rotated) == {"secret"} and rotated["secret"].startswith("whsec_") and rotated["secret"] != first
    second = rotated["secret"]
    stored = stored_webhook(studio, webhook_id)
    assert stored is not None and (stored["secret"], stored["previousSecret"]) == (second, first)
    now = int(time.time())
    assert now + 24 * 3600 - 60 <= stored["previousSecretUntil"] <= now + 24 * 3600 + 60

    body = json.dumps({"type": "webhook.test", "timestamp": "2026-11-01T00:00:00.000Z", "data": {}})
    live = signing.live_secrets(stored["secret"], stored["previousSecret"], stored["previousSecretUntil"], now)
    assert live == [second, first]
    header = signing.sign("evt_01JD0SAMPLE00000000000000", now, body, live)
    assert len(header.split(" ")) == 2
    for secret in (first, second):  # a receiver holding either secret verifies the message
        assert Verifier(secret).verify(body, _headers("evt_01JD0SAMPLE00000000000000", now, header)) == json.loads(body)
    with pytest.raises(WebhookVerificationError):
        Verifier(signing.new_secret()).verify(body, _headers("evt_01JD0SAMPLE00000000000000", now, header))

    later = stored["previousSecretUntil"]  # 24 hours on, the previous secret signs no more
    assert signing.live_secrets(stored["secret"], stored["previousSecret"], stored["previousSecretUntil"], later) == [
        second
    ]

    third = studio.ok(ROTATE, webhook_id=webhook_id)["secret"]  # a second rotation: the first secret stops at once
    stored = stored_webhook(studio, webhook_id)
    assert stored is not None and (stored["secret"], stored["previousSecret"]) == (third, second)
    assert first not in json.dumps(stored)


def test_signature_is_standard_webhooks_for_one_secret(studio: Studio) -> None:
    secret = create(studio)["secret"]
    now = int(datetime.now(UTC).timestamp())
    body = '{"type":"feedback.created","timestamp":"2026-11-01T00:00:00.000Z","data":{"rating":"down"}}'
    header = signing.sign("evt_A", now, body, [secret])
    assert header.startswith("v1,") and " " not in header
    assert Verifier(secret).verify(body, _headers("evt_A", now, header))["data"] == {"rating": "down"}
    assert signing.verify(header, secret, "evt_A", now, body)
    assert not signing.verify(header, secret, "evt_A", now, body + " ")


def test_the_secret_is_in_no_other_answer_nor_any_log_line(
    studio: Studio, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    created = create(studio)
    webhook_id, secrets = created["webhook"]["id"], [created["secret"]]
    secrets.append(studio.ok(ROTATE, webhook_id=webhook_id)["secret"])
    answers = [
        studio.call(LIST).body,
        studio.call(UPDATE, webhook_id=webhook_id, body={"description": "x"}).body,
        studio.call(TEST, webhook_id=webhook_id).body,
        studio.call(DELIVERIES, webhook_id=webhook_id).body,
    ]
    captured = capsys.readouterr()
    logged = captured.out + captured.err + caplog.text
    assert "whsec_" not in "".join(answers)
    assert logged and not any(secret in logged for secret in secrets) and "whsec_" not in logged
