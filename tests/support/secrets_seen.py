"""What counts as a secret in a log line: the shapes of secrets, and every secret the tests sent or received.

``register_secret`` / ``register_exchange`` (called by the HTTP helpers) add exact canaries; ``findings``
reports each line holding a shape or a canary, redacted. Used by the log scan plugin (``log_scan``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.keys.key_format import DISPLAY_PREFIX_LENGTH

SHAPES = {
    "workspace key": re.compile(r"sk_ws_[0-9A-Za-z]{49}(?![0-9A-Za-z])"),  # core.keys.key_format: prefix + 43 + 6
    "JWT": re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
    "session cookie": re.compile(r"\bsession=[A-Za-z0-9_-]{16,}"),
    "token parameter": re.compile(r"\btoken=[A-Za-z0-9_-]{16,}"),
}
MIN_CANARY = 10  # shorter values (a "hi" prompt) would match innocent lines
TOKEN = re.compile(r"[A-Za-z0-9_.~-]+")
SECRET_FIELDS = {"token", "idToken", "prompt", "secret", "jwt", "accessToken", "refreshToken", "password"}

_token_canaries: set[str] = set()  # matched as whole tokens: keys, JWTs, random tokens
_phrase_canaries: set[str] = set()  # matched as substrings: prompts


def register_secret(*values: Any) -> None:
    """Values no log line may contain (strings of at least ``MIN_CANARY`` characters; others are ignored)."""
    for value in values:
        if isinstance(value, str) and len(value := value.strip()) >= MIN_CANARY:
            if value.startswith("sk_ws_") and len(value) <= DISPLAY_PREFIX_LENGTH:
                continue  # a key's display prefix is public by design (key listings show it)
            (_token_canaries if TOKEN.fullmatch(value) else _phrase_canaries).add(value)


def _walk(document: Any, depth: int = 0) -> Iterable[tuple[str, Any]]:
    if depth > 64:  # a hostile test body nests thousands deep; no secret of ours lives down there
        return
    if isinstance(document, dict):
        for key, value in document.items():
            yield str(key), value
            yield from _walk(value, depth + 1)
    elif isinstance(document, list):
        for value in document:
            yield from _walk(value, depth + 1)


def register_body(body: bytes | str | None) -> None:
    """The secrets in a JSON body: fields named like secrets, keys, JWTs, links with a token."""
    try:
        document = json.loads(body or "null")
    except (ValueError, UnicodeDecodeError, RecursionError):  # not JSON, or hostile nesting: nothing to learn
        return
    for name, value in _walk(document):
        if not isinstance(value, str):
            continue
        if name in SECRET_FIELDS or value.startswith("sk_ws_"):
            register_secret(value)
        for shape in SHAPES.values():
            register_secret(*(m.group().partition("=")[2] or m.group() for m in shape.finditer(value)))


def register_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> None:
    items = headers.items() if isinstance(headers, Mapping) else headers or []
    for name, value in items:
        if name.lower() == "authorization":
            register_secret(value.partition(" ")[2] or value)
        elif name.lower() in ("cookie", "set-cookie"):
            for part in re.split(r"[;,]\s*", value):
                register_secret(part.partition("=")[2])


def register_exchange(
    request_headers: Any = None, request_body: Any = None, response_headers: Any = None, response_body: Any = None
) -> None:
    """Everything secret a test sent or received in one HTTP exchange (in-process or over the wire)."""
    register_headers(request_headers)
    register_headers(response_headers)
    register_body(request_body)
    register_body(response_body)


def redact(line: str) -> str:
    for shape in SHAPES.values():
        line = shape.sub(lambda m: m.group()[:8] + "…[REDACTED]", line)
    for canary in _phrase_canaries | {t for t in TOKEN.findall(line) if t in _token_canaries}:
        line = line.replace(canary, canary[:4] + "…[REDACTED]")
    return line


def findings(lines: Iterable[tuple[str, str]]) -> list[str]:
    """Each offending line, redacted, with where it was written and what it holds."""
    found, seen = [], set()
    for where, line in lines:
        if line in seen:  # a record is both collected and in pytest's captured log: report it once
            continue
        seen.add(line)
        kinds = [name for name, shape in SHAPES.items() if shape.search(line)]
        if _token_canaries and not _token_canaries.isdisjoint(TOKEN.findall(line)):
            kinds.append("a secret the tests used")
        if any(phrase in line for phrase in _phrase_canaries):
            kinds.append("a prompt or phrase the tests sent")
        if kinds:
            found.append(f"{where}: [{', '.join(kinds)}] {redact(line)[:400]}")
    return found
