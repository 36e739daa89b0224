"""The rules of a workspace-relative object key, one set for every place that takes one.

``/v1/r2`` and signed media URLs (``checked_path``: ``INVALID_PATH`` / ``PREFIX_NOT_ALLOWED``), uploads (the
same two answers, so a path refused for reading is refused for writing alike) and the keys named in an
author's post or item (``path_problem``, a validation error naming the field) all apply these.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from core.platform.errors import DomainError, InvalidPath, PrefixNotAllowed
from core.platform.settings import ALLOWED_R2_PREFIXES

MAX_KEY_BYTES = 900  # S3 allows 1024 for the whole key, prefix included
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: every control character
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def path_problem(path: str) -> str | None:
    """Why ``path`` (decoded, relative) cannot name an object, or None. The allowlist is not checked here."""
    if not path:
        return "must not be empty"
    if path.startswith("/"):
        return "must be relative to the workspace"
    if not path.isascii() and _SURROGATE.search(path):  # only a JSON body can carry one (a URL decodes to UTF-8)
        return "must be valid Unicode text"
    if "\\" in path or _CONTROL.search(path):
        return "must not contain backslashes or control characters"
    if any(segment in ("", ".", "..") for segment in path.split("/")):
        return "must not contain empty, '.' or '..' segments"
    if len(path.encode()) > MAX_KEY_BYTES:
        return f"at most {MAX_KEY_BYTES} bytes"
    return None


def path_refusal(path: str, field: str = "path") -> DomainError | None:
    """Why ``/v1/r2`` refuses ``path`` (``INVALID_PATH``, or ``PREFIX_NOT_ALLOWED`` off the allowlist), or None;
    ``field`` names it in the message."""
    problem = path_problem(path)
    if problem:
        return InvalidPath(f"{field}: {problem}")
    if not path.startswith(ALLOWED_R2_PREFIXES):
        return PrefixNotAllowed(f"{field}: must start with one of {', '.join(ALLOWED_R2_PREFIXES)}")
    return None


def checked_path(path: str, field: str = "path") -> str:
    """A decoded workspace-relative key, refused exactly as ``/v1/r2`` refuses it (``path_refusal``)."""
    if refusal := path_refusal(path, field):
        raise refusal
    return path


def key_in_request_path(request_path: str, route: str) -> str:
    """The object key after ``route`` in a request path (as API Gateway passes it, still percent-encoded), decoded
    exactly once: ``%2e%2e`` is ``..`` (then refused), ``%252e`` stays ``%2e``. Not yet checked."""
    start = request_path.find(route)
    rest = request_path[start + len(route) :] if start >= 0 else ""
    try:
        return unquote(rest.removeprefix("/"), errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidPath("path: must be UTF-8 once decoded") from exc
