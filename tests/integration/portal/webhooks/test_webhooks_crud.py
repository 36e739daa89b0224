"""Webhooks' CRUD (authoring.md, "Webhooks: events sent to the owner's systems"): create shows the secret once, the
listing and PATCH never; PATCH changes what it names; DELETE removes the item and its count; invalid input is 400
``{error, code}``; every write audited and idempotent."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from core.platform import main_table
from core.platform.dynamo import to_item
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.portal import assert_error
from tests.support.webhooks import (
    CREATE,
    DELETE,
    DELIVERIES,
    LIST,
    UPDATE,
    URL,
    create,
    stored_webhook,
    webhook_count,
)

WEBHOOK_FIELDS = {"id", "url", "events", "description", "enabled", "disabledReason", "createdAt", "updatedAt"}


def test_create_shows_the_secret_once_and_the_listing_never(studio: Studio) -> None:
    created = create(studio, events=["feedback.created", "credits.low"], description="CRM")
    webhook, secret = created["webhook"], created["secret"]
    assert set(created) == {"webhook", "secret"} and set(webhook) == WEBHOOK_FIELDS
    assert secret.startswith("whsec_") and len(secret) == len("whsec_") + 32  # base64 of 24 bytes
    assert webhook["id"].startswith("whk_") and webhook["url"] == URL
    assert (webhook["events"], webhook["description"], webhook["enabled"]) == (
        ["feedback.created", "credits.low"], "CRM", True,
    )  # fmt: skip
    assert webhook["disabledReason"] is None and webhook["createdAt"] == webhook["updatedAt"]

    result = studio.call(LIST)
    assert result.status == 200 and result.json() == {"webhooks": [webhook]}
    assert secret not in result.body and "whsec_" not in result.body and "ecret" not in result.body
    assert stored_webhook(studio, webhook["id"])["secret"] == secret  # type: ignore[index]
    assert webhook_count(studio) == 1


def test_patch_changes_what_it_names_and_answers_no_secret(studio: Studio) -> None:
    webhook = create(studio)["webhook"]
    result = studio.call(UPDATE, webhook_id=webhook["id"], body={"events": ["member.joined", "member.joined"]})
    assert result.status == 200 and "whsec_" not in result.body
    changed = result.json()["webhook"]
    assert changed["events"] == ["member.joined"] and changed["url"] == URL and changed["description"] == ""
    changed = studio.ok(UPDATE, webhook_id=webhook["id"], body={
        "url": "https://[2606:2800:220:1:248:1893:25c8:1946]/in", "description": "Slack", "enabled": False,
    })["webhook"]  # fmt: skip
    assert (changed["url"], changed["description"], changed["enabled"]) == (
        "https://[2606:2800:220:1:248:1893:25c8:1946]/in", "Slack", False,
    )  # fmt: skip
    assert changed["updatedAt"] >= webhook["updatedAt"]
    assert studio.ok(LIST) == {"webhooks": [changed]}
    stored = stored_webhook(studio, webhook["id"])
    assert stored is not None and stored["version"] == 2 and stored["secret"].startswith("whsec_")


def test_enabling_clears_the_workers_reason(studio: Studio) -> None:
    webhook = create(studio)["webhook"]
    studio.portal.aws.dynamodb.update_item(  # as the delivery worker disables it after a 410
        TableName=get_settings().main_table, Key=to_item(main_table.webhook(studio.workspace_id, webhook["id"])),
        UpdateExpression="SET enabled = :f, disabledReason = :r, failingSince = :s",
        ExpressionAttributeValues={":f": {"BOOL": False}, ":r": {"S": "gone"}, ":s": {"S": "2026-11-01T00:00:00.000Z"}},
    )  # fmt: skip
    assert studio.ok(LIST)["webhooks"][0]["disabledReason"] == "gone"
    changed = studio.ok(UPDATE, webhook_id=webhook["id"], body={"enabled": True})["webhook"]
    assert (changed["enabled"], changed["disabledReason"]) == (True, None)
    stored = stored_webhook(studio, webhook["id"])
    assert stored is not None and "failingSince" not in stored and "disabledReason" not in stored


def test_delete_removes_the_webhook_and_its_count(studio: Studio) -> None:
    first, second = create(studio)["webhook"], create(studio)["webhook"]
    assert webhook_count(studio) == 2
    assert studio.ok(DELETE, webhook_id=first["id"]) == {}
    assert studio.ok(LIST) == {"webhooks": [second]}
    assert stored_webhook(studio, first["id"]) is None and webhook_count(studio) == 1
    assert_error(studio.call(DELETE, webhook_id=first["id"]), 404, "NOT_FOUND")
    assert_error(studio.call(UPDATE, webhook_id=first["id"], body={"enabled": False}), 404, "NOT_FOUND")
    assert_error(studio.call(DELIVERIES, webhook_id=first["id"]), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://93.184.215.14/hooks", "https://"),
        ("ftp://93.184.215.14/hooks", "https://"),
        ("https://10.1.2.3/hooks", "private"),
        ("https://192.168.0.10/hooks", "private"),
        ("https://127.0.0.1:8443/hooks", "loopback"),
        ("https://[::1]/hooks", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "metadata"),
        ("https://[fd00:ec2::254]/", "metadata"),
        ("https://100.64.0.7/", "carrier-grade NAT"),
        ("https://[fc00::1]/", "unique-local"),
        ("https://[fe80::1]/", "link-local"),
        ("https://[::ffff:10.0.0.1]/", "private"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://224.0.0.1/", "multicast"),
        ("https://user:pw@93.184.215.14/", "credentials"),
        ("https:///nohost", "host"),
    ],
)
def test_a_url_no_delivery_may_reach_is_refused_when_saved(studio: Studio, url: str, why: str) -> None:
    result = studio.call(CREATE, body={"url": url, "events": ["*"]})
    assert_error(result, 400, "INVALID_WEBHOOK_URL")
    assert why in result.json()["error"]
    webhook = create(studio)["webhook"]
    result = studio.call(UPDATE, webhook_id=webhook["id"], body={"url": url})
    assert_error(result, 400, "INVALID_WEBHOOK_URL")
    assert studio.ok(LIST)["webhooks"] == [webhook]


def test_a_name_is_judged_by_every_address_it_resolves_to(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {"hooks.example.com": ["93.184.215.14"], "inside.example.com": ["93.184.215.14", "10.0.0.8"]}

    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert create(studio, url="https://hooks.example.com/in")["webhook"]["url"] == "https://hooks.example.com/in"
    result = studio.call(CREATE, body={"url": "https://inside.example.com/in", "events": ["*"]})
    assert_error(result, 400, "INVALID_WEBHOOK_URL")
    assert "10.0.0.8" in result.json()["error"] and "private" in result.json()["error"]
    result = studio.call(CREATE, body={"url": "https://nowhere.example.com/in", "events": ["*"]})
    assert_error(result, 400, "INVALID_WEBHOOK_URL")
    assert "does not resolve" in result.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"url": URL, "events": ["feedback.made"]},
        {"url": URL, "events": ["*", "feedback.created"]},
        {"url": URL, "events": []},
        {"url": URL, "events": "*"},
        {"url": URL},
        {"events": ["*"]},
        {"url": URL, "events": ["*"], "secret": "whsec_mine"},
        {"url": URL, "events": ["*"], "description": "x" * 501},
        {"url": URL, "events": ["*"], "description": "bell\x07"},
        {"url": "https://93.184.215.14/" + "a" * 2048, "events": ["*"]},
        {"url": "https://93.184.215.14/a b", "events": ["*"]},
    ],
)
def test_invalid_bodies_are_400(studio: Studio, body: dict[str, Any]) -> None:
    assert_error(studio.call(CREATE, body=body), 400, "VALIDATION_ERROR")
    assert studio.ok(LIST) == {"webhooks": []} and webhook_count(studio) == 0


@pytest.mark.parametrize(
    "body", [{"events": ["nope"]}, {"enabled": "yes"}, {"description": 5}, {"events": []}, {"id": "whk_x"}]
)
def test_invalid_patches_are_400(studio: Studio, body: dict[str, Any]) -> None:
    webhook = create(studio)["webhook"]
    assert_error(studio.call(UPDATE, webhook_id=webhook["id"], body=body), 400, "VALIDATION_ERROR")
