"""The rating's body (core.insights.feedback_models): ``client`` taken exactly as the chat takes it, so a visitor's
rating names the visitor the turn was answered to; the comment's rules."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from core.chat.models import ChatRequest
from core.insights.feedback_models import FeedbackRequest

CLIENTS = ["v1_3f9a2c7e5b1d4e8fa6c0b2d4", "a" * 16, "a" * 15, "a" * 128, "a" * 129, "v1 3f9a2c7e5b1d4e8f",
           "v1_3f9a2c7e5b1d4e8fa6c0b2d4 ", "203.0.113.7", "::ffff:203.0.113.7", "v1#3f9a2c7e5b1d4e8fa6", "é" * 20,
           "A-Z_a-z-0-9_____", 12345678901234567]  # fmt: skip


@pytest.mark.parametrize("client", CLIENTS)
def test_a_client_is_accepted_exactly_when_the_chat_accepts_it(client: object) -> None:
    def accepted(model: type[BaseModel], body: dict[str, object]) -> bool:
        try:
            model.model_validate(body)
        except ValidationError:
            return False
        return True

    chat = accepted(ChatRequest, {"prompt": "Hi", "client": client})
    assert accepted(FeedbackRequest, {"client": client, "rating": "up"}) == chat


def test_a_comment_is_trimmed_and_a_blank_one_is_none() -> None:
    client = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
    assert FeedbackRequest.model_validate({"client": client, "rating": "up", "comment": "  a\tb\n "}).comment == "a\tb"
    assert FeedbackRequest.model_validate({"client": client, "rating": "down", "comment": " \n "}).comment is None
    assert FeedbackRequest.model_validate({"client": client, "rating": None}).rating is None
