"""The runner serves the demo brand page: its URL in demo.json, the widget, and a key bound to the page's origin."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.e2e


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture(scope="module")
def page(service):
    url = service.demo["pageUrl"]
    reply = service.request("GET", url)
    assert reply.status == 200
    html = reply.body.decode()
    key = re.search(r'data-key="([^"]+)"', html)
    agent = re.search(r'data-agent="([^"]+)"', html)
    assert key is not None and agent is not None, "the demo page names its key and agent"
    csp = reply.header("Content-Security-Policy")
    return {"url": url, "html": html, "key": key.group(1), "agent": agent.group(1), "csp": csp}


def test_the_page_embeds_the_widget_with_one_tag_for_the_first_demo_agent(service, page):
    assert page["html"].count("<script") == 1
    assert 'src="/brand-widget.js"' in page["html"]
    assert f'data-brain-url="{service.brain}"' in page["html"]
    assert page["agent"] == service.demo["workspaces"][0]["agents"][0]["id"]
    assert f"connect-src {service.brain}" in page["csp"]
    widget = service.request("GET", page["url"] + "brand-widget.js")
    assert widget.status == 200
    assert widget.header("Content-Type").startswith("text/javascript")


def test_the_page_key_is_not_the_workspace_key_and_is_bound_to_the_page_origin(service, page):
    assert page["key"] != service.demo["workspaces"][0]["key"]
    origin = _origin(page["url"])

    allowed = service.brain_get("/v1/agent/_whoami", page["key"], Origin=origin)
    assert allowed.status == 200
    assert allowed.json()["workspaceId"] == service.demo["workspaces"][0]["id"]
    assert allowed.header("Access-Control-Allow-Origin") == origin

    twin = origin.replace("127.0.0.1", "localhost")  # the same page opened as localhost
    assert service.brain_get("/v1/agent/_whoami", page["key"], Origin=twin).status == 200

    elsewhere = service.brain_get("/v1/agent/_whoami", page["key"], Origin="https://copied.example")
    assert elsewhere.status == 403
    assert elsewhere.json()["code"] == "ORIGIN_NOT_ALLOWED"
    assert elsewhere.header("Access-Control-Allow-Origin") is None


def test_the_page_answers_only_its_own_files(service, page):
    for path in ("../template.yaml", "clients/web/brand-widget.js", "README.md", "missing.js"):
        assert service.request("GET", page["url"] + path).status == 404
