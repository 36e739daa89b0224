"""The brand widget's defences in headless Chromium: a page on an origin the key does not allow is
refused (no CORS grant), and API text is rendered as text, never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import Pages, free_port
from tests.support.brand_widget import loaded, network, open_page, raw_answers, wait_for
from tests.support.runner import LocalService

pytestmark = pytest.mark.browser


def test_a_page_on_an_origin_the_key_does_not_allow_is_refused(
    driver: Any, pages: Pages, mint_key: Callable[..., str], first: dict[str, Any], service: LocalService
) -> None:
    allowed = f"http://127.0.0.1:{free_port()}"
    key = mint_key(0, [allowed])
    elsewhere = pages.serve(key=key, agent_id=first["agents"][0]["id"])
    assert elsewhere.origin != allowed
    open_page(driver, elsewhere)
    status = wait_for(driver, "const s = document.querySelector('.bw-status');"
                              "return s.dataset.kind === 'error' && s.textContent")  # fmt: skip
    assert "origin" in status and "ORIGIN_NOT_ALLOWED" in status
    assert driver.execute_script("return document.querySelector('.bw').dataset.error") == "UNREACHABLE"
    assert driver.execute_script("return document.querySelectorAll('.bw-grid .bw-tile').length") == 0
    # What the browser got: 403, with no CORS grant, so the page could not read it.
    events = network(driver)
    refused = raw_answers(events, "/wrap")
    assert [status for status, _ in refused] == [403]
    assert "access-control-allow-origin" not in refused[0][1]
    blocked = [e["params"] for e in events if e["method"] == "Network.loadingFailed"]
    assert any(b.get("corsErrorStatus") for b in blocked), blocked
    # The same request from outside a browser shows its code.
    reply = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}/wrap", key, Origin=elsewhere.origin)
    assert (reply.status, reply.json()["code"], reply.header("access-control-allow-origin")) == (
        403, "ORIGIN_NOT_ALLOWED", None)  # fmt: skip


HOSTILE = '<img src="x" onerror="window.__xss = 1">Welcome <b>friend</b> & co'


def test_api_text_is_rendered_as_text_never_as_markup(
    driver: Any, pages: Pages, mint_key: Callable[..., str], service: LocalService
) -> None:
    """A published greeting full of markup shows as those characters: no element is made from API data."""
    from local.template import Stack, load

    second = service.demo["workspaces"][1]  # its wrap is read by no other test here
    agent = second["agents"][0]["id"]
    wrap = json.loads(service.brain_get(f"/v1/agent/{agent}/wrap", second["key"]).body)
    wrap["greeting"] = HOSTILE
    service.aws("dynamodb").update_item(
        TableName=Stack(load()).physical_name("MainTable"),
        Key={"pk": {"S": f"WS#{second['id']}"}, "sk": {"S": f"AGENT#{agent}"}},
        UpdateExpression="SET wrapJson = :wrap",
        ExpressionAttributeValues={":wrap": {"S": json.dumps(wrap)}},
    )
    port = free_port()
    page = pages.serve(key=mint_key(1, [f"http://127.0.0.1:{port}"]), agent_id=agent, port=port)
    open_page(driver, page)
    loaded(driver)
    greeting = "document.querySelector('.bw-greeting')"
    assert driver.execute_script(f"return {greeting}.textContent") == HOSTILE
    assert driver.execute_script(f"return {greeting}.children.length") == 0
    stray = "return document.querySelectorAll('.bw img:not(.bw-avatar):not(.bw-media)').length"
    assert driver.execute_script(stray) == 0
    assert driver.execute_script("return window.__xss === undefined")
