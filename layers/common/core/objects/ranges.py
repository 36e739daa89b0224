"""The HTTP of ``/v1/r2`` that S3 cannot do for us: which ``Range`` and validators to pass on, and the cap.

S3 understands one range of bytes, one strong ETag (or ``*``) in ``If-None-Match`` and one
in ``If-Match``; everything else a client may send is translated or evaluated here.
Pure functions of header values, so they are tested without S3.
"""

from __future__ import annotations

import re

_SINGLE_RANGE = re.compile(r"bytes=(\d+-\d*|-\d+)")
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")
# RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE (etagc: any visible byte but DQUOTE).
_TAG = r'(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"'
_ENTITY_TAG = re.compile(_TAG)
# A list as RFC 9110 §5.6.1 has recipients accept it: empty elements and spaces around commas allowed.
_TAG_LIST = re.compile(rf"[ \t]*(?:{_TAG})?[ \t]*(?:,[ \t]*(?:{_TAG})?[ \t]*)*")


def single_range(header: str | None) -> str | None:
    """The ``Range`` to ask S3 for, or None to serve the whole object.

    One range of bytes (``N-M``, ``N-``, ``-N``) is honoured; several ranges, other units
    or a malformed header are ignored, as RFC 9110 allows, and the answer is a full 200.
    A reversed range (``5-2``) is malformed too.
    """
    if header is None:
        return None
    value = header.strip().replace(" ", "")
    found = _SINGLE_RANGE.fullmatch(value)
    if not found:
        return None
    start, _, end = found.group(1).partition("-")
    if start and end and int(end) < int(start):
        return None
    return value


def requested_range(range_header: str | None, if_range: str | None, cap: int) -> tuple[str | None, str | None]:
    """The ``Range`` to ask S3 for (None: the whole object), and the ETag it is conditional on (``If-Range``)."""
    byte_range = single_range(range_header)
    if byte_range is None:
        return None, None  # If-Range without a Range means nothing (RFC 9110 §13.1.5)
    etag = None if if_range is None else if_range_etag(if_range)
    if if_range is not None and etag is None:
        return None, None  # a date, a weak tag or garbage in If-Range: the whole object
    return clamp_range(byte_range, cap), etag


def clamp_range(byte_range: str, cap: int) -> str:
    """``bytes=N-M`` or ``bytes=N-`` cut to at most ``cap`` bytes from N; a suffix ``bytes=-N`` as it is.

    A suffix's start depends on the object's size, which only S3's answer tells: such a part is
    cut afterwards (``capped_content_range``), so no request ever needs a HeadObject first.
    """
    start, _, end = byte_range.removeprefix("bytes=").partition("-")
    if not start:
        return byte_range
    last = int(start) + cap - 1
    return f"bytes={start}-{min(int(end), last) if end else last}"


def capped_content_range(content_range: str, cap: int) -> str | None:
    """The ``Content-Range`` of the first ``cap`` bytes of a longer part S3 sent, or None when it fits."""
    found = _CONTENT_RANGE.fullmatch(content_range)
    if not found:
        return None
    first, last, size = found.groups()
    if int(last) - int(first) < cap:
        return None
    return f"bytes {first}-{int(first) + cap - 1}/{size}"


def if_range_etag(header: str) -> str | None:
    """The strong ETag of an ``If-Range``, or None when the ``Range`` must be ignored.

    A weak tag never matches (RFC 9110 §13.1.5 compares strongly); a date could be compared with
    ``Last-Modified``, but serving the whole object instead is always correct and needs no rules
    about clock granularity. Anything malformed is treated the same way.
    """
    value = header.strip()
    return value if _ENTITY_TAG.fullmatch(value) and not value.startswith("W/") else None


def split_if_none_match(header: str | None) -> tuple[str | None, tuple[str, ...]]:
    """What S3 may evaluate of ``If-None-Match``, and the tags to compare with the object's ETag here.

    S3 takes ``*`` or one strong ETag and then sends no body, so those are passed on; a list or
    a weak tag S3 would compare as one opaque string. Every form is also compared here
    (``matches_any``): the answer does not depend on how S3 treats ``*`` on a read.
    A malformed header is ignored (the object is served, which is always correct).
    """
    if header is None:
        return None, ()
    value = header.strip()
    if value == "*":
        return value, ("*",)
    if not _TAG_LIST.fullmatch(value):
        return None, ()
    tags = tuple(_ENTITY_TAG.findall(value))
    single_strong = len(tags) == 1 and not tags[0].startswith("W/")
    return (tags[0] if single_strong else None), tags


def matches_any(tags: tuple[str, ...], etag: str) -> bool:
    """One of ``If-None-Match``'s tags matches ``etag`` (so the answer is 304): weak comparison, RFC 9110 §13.1.2."""
    return any(tag == "*" or tag.removeprefix("W/") == etag.removeprefix("W/") for tag in tags)
