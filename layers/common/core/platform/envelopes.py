"""The envelopes every route may answer with: ``{}``, ``{"deleted": true}``, ``{"sent": true}`` (the error body,
``{error, code}``, is written by ``core.platform.rest``)."""

from __future__ import annotations

from typing import Literal

from core.platform.models import ApiModel


class Empty(ApiModel):
    """``{}``: key revocation and sign-out."""


class Deleted(ApiModel):
    deleted: Literal[True] = True


class Sent(ApiModel):
    """The magic-link answer, the same whether or not the address has an account."""

    sent: Literal[True] = True
