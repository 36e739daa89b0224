"""Issue 11 holes 4, 7, 9, 10 on the billed chat handler (moto): every refusal comes before a hold, so nobody pays."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.chat import CLIENT, assert_untouched, chat, chat_event, refused
from tests.support.lambdas import invoke_streamed

INVISIBLE_PROMPTS = ["\u200b", " \u200b\u200c\u200d\t", "\u2060\ufeff\u2060", "\n\u00ad\u200e\u202e\n", "\u3164"]


def test_a_prompt_with_nothing_visible_is_400_and_never_held(funded, aws) -> None:
    for prompt in INVISIBLE_PROMPTS:
        body = refused(chat({"prompt": prompt, "client": CLIENT}), 400, "VALIDATION_ERROR")
        assert body["error"].startswith("prompt:"), body
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_hostile_bodies_are_400_and_never_held(funded, aws) -> None:
    deep = "[" * 10_000 + "]" * 10_000
    for body in (deep, '{"prompt": "hi", "client": "' + CLIENT + '", "history": ' + deep + "}",
                 '{"prompt": "\\ud800", "client": "' + CLIENT + '"}',
                 '{"prompt": "hi", "prompt": "other", "client": "' + CLIENT + '"}'):  # fmt: skip
        refused(chat(body), 400, "VALIDATION_ERROR")
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_text_plain_body_is_415_and_never_held(funded, aws) -> None:
    body = json.dumps({"prompt": "hi", "client": CLIENT})
    for content_type in ("text/plain", "text/plain;charset=UTF-8", None):
        refused(chat(body, headers={"Content-Type": content_type}), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_null_history_is_no_history(funded, aws) -> None:
    result = chat({"prompt": "hi", "client": CLIENT, "history": None, "threadKey": None, "section": None})
    assert result.status == 200, result.body


@pytest.mark.parametrize("second", ["Bearer sk_ws_other", None])
def test_two_authorization_headers_are_401_and_never_held(funded, aws, second: str | None) -> None:
    event: dict[str, Any] = chat_event({"prompt": "hi", "client": CLIENT})
    name = next(k for k in event["headers"] if k.lower() == "authorization")
    first = event["headers"][name]
    event["multiValueHeaders"][name] = [first, second or first]  # a different key, or the same one twice
    refused(invoke_streamed("BrainChatFunction", event), 401, "UNAUTHORIZED")
    assert_untouched(aws, funded.ws.owner_id, 10)
