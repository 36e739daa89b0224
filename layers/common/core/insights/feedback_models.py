"""The feedback route's wire model (authoring.md, "Feedback, unanswered questions and the owner's answers").

``POST /v1/agent/{agentId}/turns/{turnId}/feedback`` ``{client, rating, comment?}`` answers ``{}``
(``core.platform.envelopes.Empty``).
"""

from __future__ import annotations

import ipaddress
import unicodedata
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from core.platform.models import RequestModel

COMMENT_MAX = 1000
# The visitor's hash, exactly as the chat takes it (core.chat.models.ChatRequest.client; a unit test holds the two
# equal): the rating must name the visitor the turn was answered to.
CLIENT_PATTERN = r"^[A-Za-z0-9_-]+$"
# Refused in a comment: control characters (C0, DEL, C1) but the line feed and the tab a text box sends, and unpaired
# surrogates (not storable as UTF-8). A comment is shown to the owner: no escape sequence or carriage return in it.
_ALLOWED_CONTROLS = frozenset("\n\t")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs"})


class FeedbackRequest(RequestModel):
    """A visitor's rating of one reply: the last one standing; ``rating: null`` withdraws it."""

    # ``client`` is an identifier, taken exactly as sent (as the chat's); ``comment`` is trimmed by its validator.
    model_config = RequestModel.model_config | {"str_strip_whitespace": False}

    client: str = Field(
        min_length=16, max_length=128, pattern=CLIENT_PATTERN,
        description="the visitor's salted hash the turn was answered to (as sent to the chat)",
    )  # fmt: skip
    rating: Literal["up", "down"] | None = Field(description="required: up, down, or null to withdraw the rating")
    comment: str | None = Field(
        None, max_length=COMMENT_MAX,
        description="at most 1,000 characters; no control characters but line feeds and tabs; only with a rating",
    )  # fmt: skip

    @field_validator("client", mode="before")
    @classmethod
    def _not_an_ip(cls, value: object) -> object:
        """As the chat: an address is told why it is refused (never stored, never logged)."""
        if isinstance(value, str):
            try:
                ipaddress.ip_address(value)
            except ValueError:
                return value
            raise ValueError("must be a salted hash of the visitor, not an IP address")
        return value

    @field_validator("comment", mode="before")
    @classmethod
    def _plain_text(cls, value: object) -> object:
        """Checked on the comment as sent (its length too, before trimming): what the documents say it means."""
        if isinstance(value, str):
            if len(value) > COMMENT_MAX:
                raise ValueError(f"must be at most {COMMENT_MAX} characters")
            for char in value:
                if char not in _ALLOWED_CONTROLS and unicodedata.category(char) in _REFUSED_CATEGORIES:
                    raise ValueError(f"must not contain control characters (found U+{ord(char):04X})")
            return value.strip() or None  # a blank comment is no comment
        return value

    @field_validator("comment")
    @classmethod
    def _only_with_a_rating(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A withdrawal takes the comment away with the rating: a comment sent with it would be silently lost."""
        if value is not None and info.data.get("rating") is None:
            raise ValueError("only with a rating (null withdraws the rating and its comment)")
        return value
