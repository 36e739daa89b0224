"""Markup an author publishes through the writer's API stays text in the brand widget (headless Chromium): a post's
title and caption and the wrap's greeting full of tags and handlers are shown as those characters, no element is
made from them and no script runs. (``test_widget_safety.py`` writes its greeting into the table; this one goes
through the portal's API, as an author would: ``tests/attack/test_authoring_content.py`` checks the JSON.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import Pages, free_port
from tests.support.brand_widget import loaded, open_page, wait_for
from tests.support.runner import LocalService, portal, sign_in
from tests.support.s3_post import post_form

pytestmark = pytest.mark.browser

TITLE = '<img src=x onerror="window.__xss = 1">Grand <b>opening</b>'
CAPTION = '<script>window.__xss = 2</script>"><svg onload="window.__xss = 3">Come & see'
GREETING = '<iframe srcdoc="<script>parent.__xss = 4</script>"></iframe>Hello <i>there</i>'


def test_authored_markup_is_shown_as_text(
    driver: Any, pages: Pages, mint_key: Callable[..., str], first: dict[str, Any], service: LocalService
) -> None:
    port = free_port()
    key = mint_key(0, [f"http://127.0.0.1:{port}"])  # (as the owner on a plan with keys)
    jwt = sign_in(service, first["ownerEmail"])[1]
    ws = f"/api/workspaces/{first['id']}"
    created = portal(service, "POST", f"{ws}/agents", jwt, {"name": "Markup"})
    assert created.status == 201, created.body
    agent = created.json()["agent"]["id"]
    note = b"A text post's own file."
    upload = {"path": f"projects/{agent}/notes/opening.txt", "contentType": "text/plain", "size": len(note)}
    signed = portal(service, "POST", f"{ws}/uploads", jwt, upload)
    assert signed.status == 201, signed.body
    assert post_form(signed.json()["url"], signed.json()["fields"], note).status_code == 204
    post = {"key": "notes/opening.txt", "kind": "text", "title": TITLE, "caption": CAPTION, "publish": True}
    assert portal(service, "POST", f"{ws}/agents/{agent}/posts", jwt, post).status == 201
    wrap = {"layout": "feed", "greeting": GREETING, "theme": {"fontFamily": GREETING}}
    assert portal(service, "PUT", f"{ws}/agents/{agent}/wrap", jwt, wrap).json() == {"wrap": wrap}

    open_page(driver, pages.serve(key=key, agent_id=agent, port=port))
    loaded(driver)
    wait_for(driver, "return document.querySelector('.bw-greeting').textContent")
    shown = driver.execute_script(
        "const bw = document.querySelector('.bw'); const tile = bw.querySelector('.bw-tile');"
        "return {greeting: bw.querySelector('.bw-greeting').textContent,"
        " greetingChildren: bw.querySelector('.bw-greeting').children.length,"
        " title: tile.querySelector('.bw-text').textContent, caption: tile.querySelector('.bw-caption').textContent,"
        " tileChildren: [...tile.children].map(c => c.tagName + ':' + c.children.length),"
        " made: bw.querySelectorAll('script, iframe, svg, b, i, img:not(.bw-avatar):not(.bw-media)').length,"
        " font: bw.style.getPropertyValue('--bw-font'), xss: window.__xss === undefined ? null : window.__xss}"
    )
    assert shown == {
        "greeting": GREETING, "greetingChildren": 0, "title": TITLE, "caption": CAPTION,
        "tileChildren": ["P:0", "FIGCAPTION:0"], "made": 0, "font": "", "xss": None,
    }  # fmt: skip
