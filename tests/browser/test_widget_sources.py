"""The brand widget shows what a reply drew on (the chat stream's ``sources`` event, just before ``done``) in headless
Chromium: an item's name links to its file through a signed media URL, a post is a plain label, a name full of
markup stays text, a failed signing leaves the names as plain labels, and a reply that drew on nothing shows none.

The agent is published here by the Python client (a bundle with one document and one post), which also waits until
the service has read the document (``wait_for_index``), so the reply can draw on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from workspace_client import Portal
from workspace_client.bundle import carry_out, load_bundle, make_plan, wait_for_index

from tests.browser.conftest import Pages, free_port
from tests.support.brand_widget import Page, chat, open_page, wait_for
from tests.support.runner import LocalService, sign_in

pytestmark = pytest.mark.browser

HOSTILE_NAME = '<img src=x onerror="window.__xss = 1">Opening <b>hours</b>'
DOCUMENT = "notes/hours.md"
HOURS = (
    "# Opening hours\n\nWe open at 7 every morning and close at 19. On Sundays we open at 9.\n\n"
    "# Zanzibar latte\n\nThe zanzibar iced latte is brewed with our own zanzibar cold brew.\n"
)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
QUESTION = "When do you open in the morning, and is the zanzibar iced latte back?"
NOTHING_MATCHES = "Qwyxz plorf vunk?"
# The sources under the last reply: [state, [[kind, tag, name, where, href], …]], or null while there are none.
SOURCES = """
const boxes = document.querySelectorAll('.bw-log .bw-sources');
const box = boxes[boxes.length - 1];
if (!box || box.dataset.state === 'signing') return null;
return [box.dataset.state, [...box.querySelectorAll('.bw-source')].map((entry) => {
  const name = entry.querySelector('.bw-source-name'), where = entry.querySelector('.bw-source-where');
  return [entry.dataset.source, name.tagName.toLowerCase(), name.textContent, where ? where.textContent : null,
          name.getAttribute('href')];
})];
"""
LAST_REPLY_DONE = (
    "const r = document.querySelectorAll('.bw-reply'); return r.length === arguments[0] && "
    "r[r.length - 1].dataset.state === 'done'"
)


@dataclass(frozen=True)
class KnowledgePage:
    page: Page
    agent_id: str


def write_bundle(root: Path) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "media").mkdir()
    (root / DOCUMENT).write_text(HOURS)
    (root / "media" / "summer.png").write_bytes(PNG)
    documents = {
        "agent.json": {"slug": "sources-barista", "name": "Sources Barista"},
        "wrap.json": {"layout": "feed", "greeting": "Ask about our hours", "theme": {}},
        "items.json": [{"name": HOSTILE_NAME, "kind": "document", "file": DOCUMENT}],
        "posts.json": [{"createdAt": "2026-02-01T08:00:00Z", "kind": "image", "key": "media/summer.png",
                        "title": "Summer menu", "caption": "The zanzibar iced latte is back for the summer."}],
    }  # fmt: skip
    for name, document in documents.items():
        (root / name).write_text(json.dumps(document))
    return root


@pytest.fixture(scope="module")
def knowledge(
    service: LocalService,
    pages: Pages,
    mint_key: Callable[..., str],
    first: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> KnowledgePage:
    """A new agent of the first workspace with a document (its name full of markup) and a post, read by the service,
    on a page whose key allows it."""
    port = free_port()
    key = mint_key(0, [f"http://127.0.0.1:{port}"])  # (the owner on a plan with keys)
    with Portal(service.portal, token=sign_in(service, first["ownerEmail"])[1]) as portal:
        plan = make_plan(portal, first["id"], load_bundle(write_bundle(tmp_path_factory.mktemp("sources-bundle"))))
        agent_id = carry_out(portal, plan, progress=False)
        report = wait_for_index(portal, plan, agent_id, timeout=90, progress=False)
    assert [(doc.path, doc.status) for doc in report.documents] == [(DOCUMENT, "indexed")], report
    return KnowledgePage(pages.serve(key=key, agent_id=agent_id, port=port), agent_id)


def test_sources_show_under_the_reply_items_as_links_posts_as_labels_markup_as_text(
    driver: Any, knowledge: KnowledgePage, service: LocalService
) -> None:
    open_page(driver, knowledge.page)
    chat(driver, QUESTION)
    wait_for(driver, LAST_REPLY_DONE, 1)
    state, sources = wait_for(driver, SOURCES)
    assert state == "done", sources
    by_kind = {kind: (tag, name, where, href) for kind, tag, name, where, href in sources}
    assert set(by_kind) >= {"item", "post"}, sources
    # The document: its name, as the characters it is, links to its file through a signed /v1/r2 URL.
    tag, name, _, href = by_kind["item"]
    assert (tag, name) == ("a", HOSTILE_NAME)
    assert href.startswith(f"{service.brain}/v1/r2/projects/{knowledge.agent_id}/{DOCUMENT}?") and "sig=" in href
    assert service.request("GET", href).body.decode() == HOURS  # the link works, with no key
    # The post: a plain label, no link.
    assert by_kind["post"][:2] == ("span", "Summer menu") and by_kind["post"][3] is None  # no href
    # No element was made of the name: no stray image, no script run.
    stray = "return document.querySelectorAll('.bw-sources img, .bw-sources b').length"
    assert driver.execute_script(stray) == 0 and driver.execute_script("return window.__xss === undefined")
    # Under the reply (its next sibling), not in it: the reply's text (sent back as history) is the reply alone.
    placed = """
        const reply = document.querySelector('.bw-reply'), box = reply.nextElementSibling;
        const where = box.querySelector('.bw-source-where');
        return [box.matches('.bw-sources'), reply.children.length, box.querySelector('.bw-sources-title').textContent,
                where ? getComputedStyle(where).opacity : '0.7', box.querySelector('a').target];
    """
    assert driver.execute_script(placed) == [True, 0, "Sources", "0.7", "_blank"]


def test_no_sources_show_nothing_and_a_failed_signing_leaves_plain_names(driver: Any, knowledge: KnowledgePage) -> None:
    open_page(driver, knowledge.page)  # a new thread: no earlier turn for the first question to draw on
    chat(driver, NOTHING_MATCHES)
    wait_for(driver, LAST_REPLY_DONE, 1)
    assert driver.execute_script("return document.querySelectorAll('.bw-sources').length") == 0
    # The media signing refused from now on (as a revoked key or an outage would): the names stay plain text.
    driver.execute_script("""
        const original = window.fetch;
        window.fetch = (url, options) => String(url).endsWith('/v1/media-urls')
          ? Promise.resolve(new Response(JSON.stringify({error: 'unavailable', code: 'SERVICE_UNAVAILABLE'}),
                                         {status: 503, headers: {'Content-Type': 'application/json'}}))
          : original(url, options);
    """)
    chat(driver, QUESTION)
    wait_for(driver, LAST_REPLY_DONE, 2)
    state, sources = wait_for(driver, SOURCES)
    assert state == "unlinked" and sources, sources
    assert {(kind, tag) for kind, tag, *_ in sources} >= {("item", "span"), ("post", "span")}
    assert HOSTILE_NAME in [name for _, _, name, *_ in sources]
    assert driver.execute_script("return document.querySelectorAll('.bw-sources a').length") == 0
    assert driver.execute_script("return window.__xss === undefined")
