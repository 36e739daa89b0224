"""A listing's ``nextCursor``: where the next page starts, as unpadded base64url text the client hands back as is.

Each listing puts its own position in (an S3 key, a sort key, a JSON state) and checks what it reads back; anything
the listing did not make is the same 400, which tells the client to start again.
"""

from __future__ import annotations

import base64
import binascii

from core.platform.errors import ValidationFailed

BAD_CURSOR = "cursor: not a cursor of this listing (start again without one)"


def encode(position: str) -> str:
    return base64.urlsafe_b64encode(position.encode()).decode().rstrip("=")


def decode(cursor: str) -> str:
    """The position ``encode`` made ``cursor`` from; 400 ``BAD_CURSOR`` for text no ``encode`` makes (padding,
    another alphabet, bytes that are not UTF-8)."""
    try:
        position = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, ValueError) as exc:
        raise ValidationFailed(BAD_CURSOR) from exc
    if encode(position) != cursor:
        raise ValidationFailed(BAD_CURSOR)
    return position
