"""Chat requests refused before any hold: 400 naming the field, 413 over 256 KiB, an unknown brand slug."""

from __future__ import annotations

from typing import Any

import pytest

from core.brands.records import BrandRecord
from core.brands.write_store import BrandStore
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.platform.transactions import Also
from tests.support.brain import JSON
from tests.support.chat import (
    CLIENT,
    PROMPT,
    assert_untouched,
    chat,
    refused,
)


def with_fields(**fields: Any) -> dict[str, Any]:
    return {"prompt": PROMPT, "client": CLIENT} | fields


# (body, the field the message must name first), grouped so that each group costs one moto set-up.
MALFORMED: dict[str, list[tuple[Any, str]]] = {
    "prompt": [
        ({"client": CLIENT}, "prompt"),
        (with_fields(prompt=""), "prompt"),
        (with_fields(prompt=" \n\t "), "prompt"),
        (with_fields(prompt="x" * 4001), "prompt"),
        (with_fields(prompt=" " + "x" * 4001 + " "), "prompt"),
        (with_fields(prompt=5), "prompt"),
        (with_fields(prompt=["hi"]), "prompt"),
        (with_fields(prompt=None), "prompt"),
    ],
    "client": [
        ({"prompt": PROMPT}, "client"),
        (with_fields(client="a" * 15), "client"),
        (with_fields(client="a" * 129), "client"),
        (with_fields(client="visitor hash 1234567"), "client"),
        (with_fields(client="visitor/hash/1234567"), "client"),
        (with_fields(client="visitör_hash_1234567"), "client"),
        (with_fields(client="visitor.hash.1234567"), "client"),
        (with_fields(client=1234567890123456789), "client"),
        (with_fields(client=None), "client"),
    ],
    "client-ip": [
        (with_fields(client="203.0.113.7"), "client"),
        (with_fields(client="2001:db8::1"), "client"),
        (with_fields(client="2001:0db8:0000:0000:0000:ff00:0042:8329"), "client"),
        (with_fields(client="::ffff:198.51.100.4"), "client"),
    ],
    "threadKey": [
        (with_fields(threadKey="t" * 129), "threadKey"),
        (with_fields(threadKey="thr sample"), "threadKey"),
        (with_fields(threadKey="thr/../other"), "threadKey"),
        (with_fields(threadKey=""), "threadKey"),
        (with_fields(threadKey=7), "threadKey"),
    ],
    "history": [
        (with_fields(history=[{"content": "hi"}] * 51), "history"),
        (with_fields(history=[{"content": "x" * 16_001}] * 2), "history"),
        (with_fields(history=[{"role": "user"}]), "history.0.content"),
        (with_fields(history=[{"content": "a"}, {"content": 5}]), "history.1.content"),
        (with_fields(history=[{"content": None}]), "history.0.content"),
        (with_fields(history=["just text"]), "history.0"),
        (with_fields(history={"content": "hi"}), "history"),
    ],
    "other-fields": [
        (with_fields(section="s" * 129), "section"),
        (with_fields(section=3), "section"),
        (with_fields(brandSlug="b" * 129), "brandSlug"),
        (with_fields(model="gpt-5"), "model"),
        (with_fields(thread_key="thr_1"), "thread_key"),
        (with_fields(brand_slug="acme"), "brand_slug"),
    ],
    "body": [
        ('{"prompt": "hi", "client": ', "body"),
        ("not json at all", "body"),
        ("", "body"),
        ("null", "body"),
        ('[{"prompt": "hi"}]', "body"),
        ('"a string"', "body"),
    ],
}


@pytest.mark.parametrize("group", MALFORMED)
def test_a_malformed_request_is_400_naming_the_field(funded, aws, group: str) -> None:
    wrong = []
    for body, field in MALFORMED[group]:
        result = chat(body)
        answer = result.json() if result.header("Content-Type") == JSON else result.body
        ok = (
            result.status == 400
            and isinstance(answer, dict)
            and set(answer) == {"error", "code"}
            and answer["code"] == "VALIDATION_ERROR"
            and answer["error"].startswith(f"{field}: ")
        )
        if not ok:
            wrong.append((str(body)[:80], field, result.status, answer))
    assert wrong == []
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_body_over_256_kib_is_413(funded, aws) -> None:
    result = chat(with_fields(history=[{"content": "z" * 30_000}] * 9))
    refused(result, 413, "PAYLOAD_TOO_LARGE")
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_brand_slug_that_names_no_brand_of_the_workspace_is_400(funded, rival, aws) -> None:
    now = now_iso()
    theirs = BrandRecord(
        id=new_id("brd"), workspace_id=rival.ws.id, slug="rival-only", name="Rival", created_at=now, updated_at=now
    )
    BrandStore(aws.dynamodb, get_settings().main_table).create(theirs, default_was=None, also=Also())
    for slug in ("no-such-brand", "rival-only", "", "ACME"):
        message = refused(chat(brandSlug=slug), 400, "VALIDATION_ERROR")["error"]
        assert message.startswith("brandSlug: "), message
    assert_untouched(aws, funded.ws.owner_id, 10)
