"""Objects' media types: which ones an upload may declare, and the one an object stored is served with.

An upload declares its type and S3 stores it as sent, then answers it as the object's ``Content-Type`` on every
read. So a declared type is held to a strict form: ASCII, one type of the allowlist, and at most a ``charset``
parameter. ``\\s`` or a case-insensitive match would let through CR LF, C0/C1 controls and Unicode spaces
(``\\x1c``, ``\\x85``, U+3000) and letters that fold to ASCII (the Kelvin sign ``K`` is ``k`` lowercased), none of
which HTTP can carry: such an object answered 500 on every read, listing and delete.

Never a type a browser would run as a page of the API's own origin (HTML, SVG, XML, script): ``/v1/r2`` serves
an object with its type. An object already stored with a type HTTP cannot carry (before this rule, or written to
the bucket by other means) is still read, listed and deleted: ``served_type`` answers it as
``application/octet-stream``, which a browser only downloads.
"""

from __future__ import annotations

import re

UPLOAD_TYPES = (
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif",
    "video/mp4", "video/webm", "video/quicktime",
    "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/wav", "audio/webm",
    "application/pdf", "application/json", "text/plain", "text/markdown", "text/csv", "text/uri-list",
)  # fmt: skip
UNKNOWN = "application/octet-stream"

# re.ASCII: without it, IGNORECASE matches letters outside ASCII that fold onto ASCII ones.
_UPLOAD_TYPE = re.compile(r"([a-z0-9.+-]+/[a-z0-9.+-]+)(?:; ?charset=(?:utf-8|us-ascii))?", re.IGNORECASE | re.ASCII)
# RFC 9110's media-type with token parameters: what a response header may carry without surprising a reader.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"  # noqa: S105 - an HTTP token, not a secret
_MEDIA_TYPE = re.compile(rf"{_TOKEN}/{_TOKEN}(?: *; *{_TOKEN}={_TOKEN})*", re.ASCII)


def upload_type_problem(value: str) -> str | None:
    """Why ``value`` may not be an upload's declared type, or None when it may."""
    match = _UPLOAD_TYPE.fullmatch(value)
    if not match or match.group(1).lower() not in UPLOAD_TYPES:
        return f"must be one of {', '.join(UPLOAD_TYPES)} (optionally with '; charset=utf-8')"
    return None


def served_type(stored: str | None) -> str:
    """The type an object is served and listed with: the one S3 holds when it is a well-formed media type of
    ASCII tokens, ``application/octet-stream`` otherwise (or when it has none)."""
    return stored if stored and _MEDIA_TYPE.fullmatch(stored) else UNKNOWN
