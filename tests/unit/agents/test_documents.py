"""core.agents.documents: lenient wrap / site / suggestions parsers that never fail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.documents import WRAP_LAYOUTS, parse_site, parse_suggestions, parse_wrap

WRAP_DEFAULTS = {"layout": "chat", "greeting": "", "theme": {}}
SITE_EMPTY: dict[str, list[Any]] = {"pages": [], "nav": [], "sections": []}
UNREADABLE = [
    None,
    "",
    "   ",
    "not json",
    "{",
    '{"layout": "feed"',
    "null",
    "42",
    '"text"',
    "true",
    "[]",
    "[1, 2]",
    "NaN",
]


def wire(model: Any) -> dict[str, Any]:
    return json.loads(json.dumps(model.wire()))


# --- wrap


@pytest.mark.parametrize("text", UNREADABLE)
def test_wrap_unreadable_gives_neutral_defaults(text: str | None) -> None:
    assert wire(parse_wrap(text)) == WRAP_DEFAULTS


def test_wrap_valid_document_is_kept_with_extra_fields() -> None:
    doc = {"layout": "grid", "greeting": "Hi!", "theme": {"accent": "#f00"}, "logo": "assets/l.png", "ctaText": "Go"}
    assert wire(parse_wrap(json.dumps(doc))) == doc


@pytest.mark.parametrize("layout", WRAP_LAYOUTS)
def test_wrap_known_layouts_are_kept(layout: str) -> None:
    assert parse_wrap(json.dumps({"layout": layout})).layout == layout


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("layout", "carousel"),
        ("layout", 3),
        ("layout", None),
        ("layout", ["chat"]),
        ("greeting", 42),
        ("greeting", None),
        ("greeting", {"text": "hi"}),
        ("theme", "dark"),
        ("theme", ["dark"]),
        ("theme", None),
    ],
)
def test_wrap_malformed_field_falls_back_and_the_rest_is_kept(field: str, bad: Any) -> None:
    good = {"layout": "split", "greeting": "Welcome", "theme": {"mode": "dark"}, "extra": [1]}
    result = wire(parse_wrap(json.dumps(good | {field: bad})))
    assert result == good | {field: WRAP_DEFAULTS[field]}


def test_wrap_missing_fields_are_defaulted() -> None:
    assert wire(parse_wrap('{"greeting": "Hello"}')) == WRAP_DEFAULTS | {"greeting": "Hello"}


# --- site


@pytest.mark.parametrize("text", UNREADABLE)
def test_site_unreadable_has_no_pages(text: str | None) -> None:
    assert wire(parse_site(text)) == SITE_EMPTY


def test_site_valid_document_is_kept() -> None:
    doc = {
        "pages": [{"id": "home", "title": "Home"}],
        "nav": [{"label": "Home", "page": "home"}],
        "sections": [{"id": "hero"}],
        "domain": "brand.example.com",
    }
    assert wire(parse_site(json.dumps(doc))) == doc


@pytest.mark.parametrize("field", ["pages", "nav", "sections"])
@pytest.mark.parametrize("bad", [{"a": 1}, "home", 3, None])
def test_site_malformed_list_falls_back_to_empty(field: str, bad: Any) -> None:
    good = {"pages": [{"id": "p"}], "nav": [{"label": "n"}], "sections": [{"id": "s"}]}
    assert wire(parse_site(json.dumps(good | {field: bad}))) == good | {field: []}


def test_site_without_pages_has_empty_pages() -> None:
    assert wire(parse_site('{"nav": [1]}')) == {"pages": [], "nav": [1], "sections": []}


# --- suggestions


@pytest.mark.parametrize("text", [None, "", "nope", "{", "null", "42", '"s"', "{}", '{"suggestions": "x"}'])
def test_suggestions_unreadable_is_empty(text: str | None) -> None:
    assert wire(parse_suggestions(text)) == {"suggestions": []}


def test_suggestions_bare_list() -> None:
    items = ["What's new?", {"label": "Pricing", "prompt": "How much?"}]
    assert wire(parse_suggestions(json.dumps(items))) == {"suggestions": items}


def test_suggestions_wrapped_list() -> None:
    items = [{"label": "Hi"}]
    assert wire(parse_suggestions(json.dumps({"suggestions": items, "other": 1}))) == {"suggestions": items}


def test_suggestions_empty_list() -> None:
    assert wire(parse_suggestions("[]")) == {"suggestions": []}


# --- "never fails", however the document is written

DEEP = ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000]


@pytest.mark.parametrize("parser", [parse_wrap, parse_site, parse_suggestions], ids=lambda p: p.__name__)
@pytest.mark.parametrize("text", DEEP, ids=["deep-array", "deep-object"])
def test_deeply_nested_document_does_not_fail(parser: Any, text: str) -> None:
    assert wire(parser(text)) == wire(parser(None))  # unreadable → the neutral defaults
