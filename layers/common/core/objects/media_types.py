"""Objects' media types: which ones an upload may declare, the one an object stored is served with, and whether a
browser is let show it inline.

An upload declares its type and S3 stores it as sent, then answers it as the object's ``Content-Type`` on every
read. So a declared type is held to a strict form: ASCII, one type of the allowlist, and at most a ``charset``
parameter. ``\\s`` or a case-insensitive match would let through CR LF, C0/C1 controls and Unicode spaces
(``\\x1c``, ``\\x85``, U+3000) and letters that fold to ASCII (the Kelvin sign ``K`` is ``k`` lowercased), none of
which HTTP can carry: such an object answered 500 on every read, listing and delete.

Never a type a browser would run as a page of the API's own origin (HTML, XHTML, SVG, XML, script): ``/v1/r2``
serves an object with its type. An object already stored with a type HTTP cannot carry (before this rule, or
written to the bucket by other means) is still read, listed and deleted: ``served_type`` answers it as
``application/octet-stream``, which a browser only downloads.

``/v1/r2`` lets a browser show inline only what it shows inertly: the media and plain-text types of the allowlist
(``INLINE_TYPES``). Everything else (PDF, JSON, documents, archives, octet-stream, and any type an object got by
other means) is answered with ``Content-Disposition: attachment`` (``content_disposition``), so a navigation to it
downloads it rather than opening it at the API's origin.
"""

from __future__ import annotations

import re
from urllib.parse import quote

UNKNOWN = "application/octet-stream"
# What a browser shows inertly when navigated to (with nosniff): raster images, video, audio and plain text.
# Never SVG (an image that runs script), never a text type that is markup.
INLINE_TYPES = frozenset((
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif",
    "video/mp4", "video/webm", "video/quicktime",
    "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/wav", "audio/webm",
    "text/plain", "text/markdown", "text/csv", "text/uri-list",
))  # fmt: skip
UPLOAD_TYPES = (
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif",
    "video/mp4", "video/webm", "video/quicktime",
    "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/wav", "audio/webm",
    "application/pdf", "application/json", "text/plain", "text/markdown", "text/csv", "text/uri-list",
    # Office documents: Word, Excel and PowerPoint (OOXML and legacy binary), OpenDocument.
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
    "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
    "application/epub+zip", "application/zip", UNKNOWN,
)  # fmt: skip

# re.ASCII: without it, IGNORECASE matches letters outside ASCII that fold onto ASCII ones.
_UPLOAD_TYPE = re.compile(r"([a-z0-9.+-]+/[a-z0-9.+-]+)(?:; ?charset=(?:utf-8|us-ascii))?", re.IGNORECASE | re.ASCII)
# RFC 9110's media-type with token parameters: what a response header may carry without surprising a reader.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"  # noqa: S105 - an HTTP token, not a secret
_MEDIA_TYPE = re.compile(rf"{_TOKEN}/{_TOKEN}(?: *; *{_TOKEN}={_TOKEN})*", re.ASCII)
# A filename's plain form: RFC 5987's attr-char and the space, nothing a quoted-string must escape, no "%" (which
# some browsers decode in ``filename``); any other character becomes "_", and ``filename*`` carries the name.
_PLAIN_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9!#$&+.^_`|~ -]")
_ATTR_CHARS = "!#$&+.^`|~-"  # with letters, digits and "_", which quote() always keeps


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


def shown_inline(served: str) -> bool:
    """Whether a browser may show an object of this (served) type inline: its essence is one of ``INLINE_TYPES``."""
    return served.split(";", 1)[0].strip().lower() in INLINE_TYPES


def attachment(path: str) -> str:
    """``attachment`` with the filename of ``path``'s last segment (RFC 6266): a plain ``filename`` any client
    reads, and ``filename*`` (RFC 8187, UTF-8 percent-encoded) when the name has more than that form keeps.
    Both forms are built from a closed set of characters, so no key can end the header or add a parameter."""
    name = path.rsplit("/", 1)[-1]
    plain = _PLAIN_NAME_UNSAFE.sub("_", name)
    if plain == name:
        return f'attachment; filename="{plain}"'
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe=_ATTR_CHARS)}"


def content_disposition(served: str, path: str, stored: str | None) -> str | None:
    """The ``Content-Disposition`` ``/v1/r2`` answers an object with: the object's own (if any) for a type shown
    inline, otherwise always ``attachment`` with the key's name (an ``inline`` stored with the object is ignored)."""
    return stored if shown_inline(served) else attachment(path)
