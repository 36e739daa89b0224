"""The identity's wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from typing import Annotated

from core.platform.fields import (
    EMAIL_DOCUMENTED,
    EMAIL_PATTERN,
    text_rules,
)
from core.platform.models import ApiModel, RequestModel


class Account(ApiModel):
    id: str
    email: str
    name: str
    image: str
    role: str
    workspace_id: str | None
    created_at: str


class MagicLinkRequest(RequestModel):
    email: Annotated[str, *text_rules(3, 254, pattern=EMAIL_PATTERN, documented=EMAIL_DOCUMENTED)]


class MagicLinkVerifyRequest(RequestModel):
    token: Annotated[str, *text_rules(1, 512)]


class IdTokenRequest(RequestModel):
    id_token: Annotated[str, *text_rules(1, 8192)]


class TokenResponse(ApiModel):
    token: str


class SignInResponse(ApiModel):
    user: Account
