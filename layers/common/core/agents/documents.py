"""Lenient parsers for published JSON documents (wrap, site, suggestions).

These documents are written by an editor we do not control, so reading them must
never fail: an unreadable document gives the neutral defaults, and a malformed
field falls back to its own default while the rest of the document is kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from core.agents.models import SiteConfig, Suggestions, WrapConfig

WRAP_LAYOUTS = ("chat", "feed", "grid", "split")
# Editor fields that identify or wire an entry rather than say anything to a visitor.
_NOT_CONTENT = frozenset({"id", "slug", "type", "path", "sections"})
_MAX_DEPTH = 8  # editor documents may nest deeply; content that deep is not worth a recursion error


def _load(text: str | None) -> Any:
    """The parsed document, or ``None`` when it cannot be read (including pathologically deep nesting)."""
    if not text:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None


def _load_object(text: str | None) -> dict[str, Any]:
    value = _load(text)
    return value if isinstance(value, dict) else {}


def parse_wrap(text: str | None) -> WrapConfig:
    document = _load_object(text)
    defaults = WrapConfig()
    layout = document.get("layout")
    greeting = document.get("greeting")
    theme = document.get("theme")
    return WrapConfig.model_validate(
        document
        | {
            "layout": layout if layout in WRAP_LAYOUTS else defaults.layout,
            "greeting": greeting if isinstance(greeting, str) else defaults.greeting,
            "theme": theme if isinstance(theme, dict) else {},
        }
    )


def parse_site(text: str | None) -> SiteConfig:
    document = _load_object(text)
    lists = {name: document.get(name) for name in ("pages", "nav", "sections")}
    return SiteConfig.model_validate(
        document | {name: value if isinstance(value, list) else [] for name, value in lists.items()}
    )


def parse_suggestions(text: str | None) -> Suggestions:
    """A workflow publishes either a bare list or ``{"suggestions": [...]}``."""
    value = _load(text)
    if isinstance(value, dict):
        value = value.get("suggestions")
    return Suggestions(suggestions=value if isinstance(value, list) else [])


def text_values(value: Any, depth: int = 0) -> Iterator[str]:
    """The non-blank string values under ``value``, in document order."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        if text := " ".join(value.split()):
            yield text
    elif isinstance(value, dict):
        for key, child in value.items():
            if key not in _NOT_CONTENT:
                yield from text_values(child, depth + 1)
    elif isinstance(value, list):
        for child in value:
            yield from text_values(child, depth + 1)
