"""wrap, site and suggestions: published documents read leniently (defaults, never a 500); 404 outside the workspace."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.brain import AGENT_NOT_FOUND, call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event
from tests.support.seed import Seeder

WRAP, SITE, SUGGESTIONS = "BrainWrapFunction", "BrainSiteFunction", "BrainSuggestionsFunction"
WRAP_DEFAULTS = {"layout": "chat", "greeting": "", "theme": {}}
NO_SITE: dict[str, list[Any]] = {"pages": [], "nav": [], "sections": []}
PUBLISHED_WRAP = {
    "layout": "split",
    "greeting": "Hi, ask me anything",
    "theme": {"primary": "#0a84ff", "font": {"family": "Inter"}},
    "avatarKey": "assets/avatar.png",
}
PUBLISHED_SITE = {
    "pages": [{"id": "home", "path": "/", "title": "Home"}, {"id": "menu", "path": "/menu", "title": "Menu"}],
    "nav": [{"label": "Home", "page": "home"}, {"label": "Menu", "page": "menu"}],
    "sections": [{"id": "hero", "page": "home", "kind": "hero", "heading": "Welcome"}],
    "title": "Acme Café",
}
STARTERS = [{"title": "Opening hours", "prompt": "When are you open?"}, {"title": "Menu", "prompt": "What's on?"}]


def read(seed: Seeder, tenant, function: str, **documents: Any) -> Any:
    agent = seed.agent(tenant.ws, slug="published", **documents)
    return ok_json(call(function, agent_id=agent.id))


# ---------------------------------------------------------------- wrap


def test_sample_event_wrap_of_an_unpublished_agent_is_the_neutral_defaults(tenant) -> None:
    assert ok_json(invoke(WRAP, sample_event(WRAP))) == WRAP_DEFAULTS


def test_published_wrap_is_returned_whole(tenant, seed: Seeder) -> None:
    assert read(seed, tenant, WRAP, wrap=PUBLISHED_WRAP) == PUBLISHED_WRAP


@pytest.mark.parametrize("document", ["{not json", "", "null", "[1, 2]", '"chat"', "42", "{'layout': 'feed'}"])
def test_unreadable_wrap_gives_the_defaults(tenant, seed: Seeder, document: str) -> None:
    assert read(seed, tenant, WRAP, wrap=document) == WRAP_DEFAULTS


@pytest.mark.parametrize(
    ("broken", "fallback"),
    [
        ({"layout": 7}, {"layout": "chat"}),
        ({"layout": "carousel"}, {"layout": "chat"}),
        ({"layout": None}, {"layout": "chat"}),
        ({"greeting": ["hi"]}, {"greeting": ""}),
        ({"greeting": None}, {"greeting": ""}),
        ({"theme": "dark"}, {"theme": {}}),
        ({"theme": ["#000"]}, {"theme": {}}),
    ],
)
def test_a_wrong_shaped_field_falls_back_alone(tenant, seed: Seeder, broken: dict, fallback: dict) -> None:
    assert read(seed, tenant, WRAP, wrap=PUBLISHED_WRAP | broken) == PUBLISHED_WRAP | fallback


@pytest.mark.parametrize("layout", ["chat", "feed", "grid", "split"])
def test_every_known_layout_is_kept(tenant, seed: Seeder, layout: str) -> None:
    assert read(seed, tenant, WRAP, wrap={"layout": layout}) == WRAP_DEFAULTS | {"layout": layout}


# ---------------------------------------------------------------- site


def test_sample_event_site_of_an_unpublished_agent_has_no_pages(tenant) -> None:
    assert ok_json(invoke(SITE, sample_event(SITE))) == NO_SITE


def test_published_site_with_pages_nav_and_sections(tenant, seed: Seeder) -> None:
    assert read(seed, tenant, SITE, site=PUBLISHED_SITE) == PUBLISHED_SITE


@pytest.mark.parametrize("document", ["<html>", "null", "[]", "{}"])
def test_unreadable_or_empty_site_is_no_site(tenant, seed: Seeder, document: str) -> None:
    assert read(seed, tenant, SITE, site=document) == NO_SITE


def test_a_wrong_shaped_site_list_falls_back_alone(tenant, seed: Seeder) -> None:
    broken = PUBLISHED_SITE | {"nav": {"home": "/"}, "sections": None}
    assert read(seed, tenant, SITE, site=broken) == PUBLISHED_SITE | {"nav": [], "sections": []}


# ---------------------------------------------------------------- suggestions


def test_sample_event_suggestions_of_a_workflow_without_any(tenant) -> None:
    assert ok_json(invoke(SUGGESTIONS, sample_event(SUGGESTIONS))) == {"suggestions": []}


@pytest.mark.parametrize("document", [STARTERS, {"suggestions": STARTERS}])
def test_suggestions_come_from_the_active_workflow(tenant, seed: Seeder, document: Any) -> None:
    agent = seed.agent(tenant.ws, slug="published", suggestions=document)
    seed.workflow(tenant.ws, suggestions=[{"title": "Not active", "prompt": "no"}])
    assert ok_json(call(SUGGESTIONS, agent_id=agent.id)) == {"suggestions": STARTERS}


def test_switching_the_active_workflow_switches_the_suggestions(tenant, seed: Seeder) -> None:
    agent = seed.agent(tenant.ws, slug="published", suggestions=STARTERS)
    other = seed.workflow(tenant.ws, suggestions=["Book a table"])
    seed.activate(agent, other.id)
    assert ok_json(call(SUGGESTIONS, agent_id=agent.id)) == {"suggestions": ["Book a table"]}


def test_missing_active_workflow_gives_no_suggestions(tenant, seed: Seeder) -> None:
    seed.activate(tenant.agent, "wf_01JD0GONE0000000000000000")
    assert ok_json(call(SUGGESTIONS)) == {"suggestions": []}


@pytest.mark.parametrize(
    "document", ["{oops", "null", "42", '"hello"', "{}", '{"suggestions": "hi"}', '{"starters": []}', "[]"]
)
def test_malformed_suggestions_are_an_empty_list_not_a_500(tenant, seed: Seeder, document: str) -> None:
    assert read(seed, tenant, SUGGESTIONS, suggestions=document) == {"suggestions": []}


# ---------------------------------------------------------------- all three


@pytest.mark.parametrize("function", [WRAP, SITE, SUGGESTIONS])
def test_unknown_slug_and_other_workspace_are_404(tenant, rival, function: str) -> None:
    for agent_id in ("prj_unknown", tenant.agent.slug, rival.agent.id):
        assert error_of(call(function, agent_id=agent_id)) == (404, AGENT_NOT_FOUND)


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    ("function", "field"), [(WRAP, "wrap"), (SITE, "site"), (SUGGESTIONS, "suggestions")], ids=["wrap", "site", "sugg"]
)
def test_non_json_numbers_in_a_document_never_reach_the_wire(tenant, seed: Seeder, function: str, field: str) -> None:
    documents = {
        "wrap": '{"layout": "feed", "theme": {"opacity": NaN}}',
        "site": '{"pages": [{"id": "home", "weight": Infinity}]}',
        "suggestions": '[{"title": "x", "score": -Infinity}]',
    }
    expected = {
        "wrap": WRAP_DEFAULTS | {"layout": "feed", "theme": {"opacity": None}},
        "site": NO_SITE | {"pages": [{"id": "home", "weight": None}]},
        "suggestions": {"suggestions": [{"title": "x", "score": None}]},
    }
    agent = seed.agent(tenant.ws, slug="published", **{field: documents[field]})
    result = call(function, agent_id=agent.id)
    assert result.status == 200
    assert _strict_json(result.body) == expected[field]
