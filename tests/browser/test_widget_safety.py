"""The brand widget's defences in headless Chromium: a page on an origin the key does not allow is
refused (no CORS grant), API text is rendered as text, never as markup, and a wrap's theme applies only plain
colours and font names (no value makes the visitor's browser fetch from elsewhere).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.browser.conftest import Pages, free_port
from tests.support.brand_widget import Page, loaded, network, open_page, raw_answers, wait_for
from tests.support.runner import LocalService, portal, sign_in

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
    from stack.template import Stack, load

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


@dataclass
class ThirdParty:
    """A server on another origin than the page and the brain: the paths the browser asked it for."""

    origin: str
    hits: list[str] = field(default_factory=list)

    def wait_for_hit(self, path: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while path not in self.hits:
            assert time.monotonic() < deadline, f"the browser never asked {self.origin} for {path}: {self.hits}"
            time.sleep(0.05)


@pytest.fixture
def third_party() -> Iterator[ThirdParty]:
    recorded = ThirdParty("")

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            recorded.hits.append(self.path)
            self.send_response(204)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    recorded.origin = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, name="third-party", daemon=True).start()
    yield recorded
    server.shutdown()
    server.server_close()


THEMED_AGENTS = itertools.count(1)  # an agent's name gives its slug, unique in the workspace


@pytest.fixture
def themed_page(
    service: LocalService, pages: Pages, mint_key: Callable[..., str], first: dict[str, Any]
) -> Callable[[dict[str, str]], Page]:
    """``themed_page(theme)``: a new agent of the first workspace whose wrap has ``theme`` (published as an author
    would, through the portal), on a page whose policy allows images from anywhere (as many embedding pages do)."""

    def serve(theme: dict[str, str]) -> Page:
        port = free_port()
        key = mint_key(0, [f"http://127.0.0.1:{port}"])  # (as the owner on a plan with keys)
        jwt = sign_in(service, first["ownerEmail"])[1]
        ws = f"/api/workspaces/{first['id']}"
        created = portal(service, "POST", f"{ws}/agents", jwt, {"name": f"Themed {next(THEMED_AGENTS)}"})
        assert created.status == 201, created.body
        agent = created.json()["agent"]["id"]
        wrap = {"layout": "feed", "greeting": "Welcome", "theme": theme}
        assert portal(service, "PUT", f"{ws}/agents/{agent}/wrap", jwt, wrap).json() == {"wrap": wrap}
        return pages.serve(key=key, agent_id=agent, port=port, img_src="*")

    return serve


THEME_STYLE = """
const bw = document.querySelector('.bw');
const names = ['--bw-primary', '--bw-accent', '--bw-background', '--bw-text', '--bw-font'];
return Object.fromEntries(names.map((n) => [n, bw.style.getPropertyValue(n)]));
"""
# The wrap and the (empty) feed are in: the status is cleared, or shows why not.
SETTLED = "const s = document.querySelector('.bw-status'); return s.dataset.kind !== 'info' && (s.dataset.kind || 'ok')"


def test_theme_values_that_are_not_plain_colours_fetch_nothing_and_are_ignored(
    driver: Any, themed_page: Callable[[dict[str, str]], Page], third_party: ThirdParty
) -> None:
    """A value holding var() passes CSS.supports for any property: such values (one a fetch from elsewhere) used to
    reach the page's CSS. Now none applies and the browser asks the other server for nothing; a plain colour applies."""
    elsewhere = third_party.origin
    theme = {
        "primary": "#123456",  # the one plain colour: it applies
        "background": f"url({elsewhere}/background.png) var(--x,)",  # .bw's background: a fetch
        "accent": f"var(--x,) image-set(url({elsewhere}/accent.png) 1x)",  # the Send button's background: a fetch
        "text": "var(--page-text, red)",  # the embedding page's own variable, not a colour
        "fontFamily": f"var(--x,) Georgia, url({elsewhere}/font.woff)",
    }
    open_page(driver, themed_page(theme))
    assert wait_for(driver, SETTLED) == "ok"
    # A probe of ours, styled after the widget's theme was applied, is fetched from the same server: the browser
    # has resolved the widget's styles by then, and the page's policy lets it load images from there.
    driver.execute_script(
        "const probe = document.createElement('div'); probe.style.width = probe.style.height = '4px';"
        "probe.style.backgroundImage = `url(${arguments[0]}/probe.png)`; document.body.append(probe);",
        elsewhere,
    )
    third_party.wait_for_hit("/probe.png")
    assert third_party.hits == ["/probe.png"]
    assert driver.execute_script(THEME_STYLE) == {
        "--bw-primary": "#123456", "--bw-accent": "", "--bw-background": "", "--bw-text": "", "--bw-font": "",
    }  # fmt: skip
    greeting_colour = "return getComputedStyle(document.querySelector('.bw-greeting')).color"
    assert driver.execute_script(greeting_colour) == "rgb(18, 52, 86)"


def test_plain_theme_colours_and_font_names_apply(driver: Any, themed_page: Callable[[dict[str, str]], Page]) -> None:
    """Each form clients/web/README.md accepts reaches the page as written."""
    theme = {
        "primary": "rebeccapurple",
        "accent": "rgb(10 20 30 / 50%)",
        "background": "hsl(120deg, 50%, 40%)",
        "text": "#1d1d1f",
        "fontFamily": "Georgia, 'Times New Roman', serif",
    }
    open_page(driver, themed_page(theme))
    assert wait_for(driver, SETTLED) == "ok"
    assert driver.execute_script(THEME_STYLE) == {
        "--bw-primary": "rebeccapurple", "--bw-accent": "rgb(10 20 30 / 50%)",
        "--bw-background": "hsl(120deg, 50%, 40%)", "--bw-text": "#1d1d1f",
        "--bw-font": "Georgia, 'Times New Roman', serif, system-ui, sans-serif",
    }  # fmt: skip
    computed = driver.execute_script(
        "const bw = getComputedStyle(document.querySelector('.bw')); return [bw.backgroundColor, bw.color]"
    )
    assert computed == ["rgb(51, 153, 51)", "rgb(29, 29, 31)"]
