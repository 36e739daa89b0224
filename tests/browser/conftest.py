"""Headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by Selenium) against the local runner.

The tests (``test_widget_*.py``, one module a concern: chat, media, limits, safety) open pages, each on
its own origin, that embed clients/web/brand-widget.js; ``tests/support/brand_widget.py`` drives them.

Nothing is downloaded: the driver and the browser are given by path and Selenium Manager runs offline.
Without the binaries the tests skip, naming ``make browser-deps``; with ``CI=true`` or
``REQUIRE_BROWSER=1`` they fail instead, so CI cannot pass by skipping them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from local.demo.page import PageHandler, serve_page
from stack.template import ROOT
from tests.support.brand_widget import Page
from tests.support.runner import LocalService, portal, sign_in, started_service

CHROMIUM = Path(os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"))
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,1400",
]  # fmt: skip


def browser_required() -> bool:
    return os.environ.get("CI", "").lower() == "true" or os.environ.get("REQUIRE_BROWSER") == "1"


def missing_browser() -> str | None:
    """Why the browser cannot run here, or None."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        return f"{' and '.join(missing)} not installed: run `make browser-deps` (apt: chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed in this virtualenv (requirements-dev.txt)"
    return None


@pytest.fixture(scope="session")
def browser_available() -> None:
    reason = missing_browser()
    if reason and browser_required():
        pytest.fail(f"the browser tests are required here (CI/REQUIRE_BROWSER) but cannot run: {reason}")
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def driver(browser_available: None) -> Iterator[Any]:
    """One headless Chromium for the session; every test opens its own page in it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a driver or a browser
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    browser.set_script_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


# The runner, its page servers and keys last for the package (its test modules are one suite split by concern):
# one runner, as when the tests were one module.
@pytest.fixture(scope="package")
def service(browser_available: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """A runner of the browser tests' own: the tests spend credits and mint keys."""
    yield from started_service(tmp_path_factory.mktemp("browser-state"))


def free_port() -> int:
    """A port for a page server whose origin a key must name before the server starts (the key is in the page)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Pages:
    """Page servers for the browser tests, each on its own origin, all stopped at the end."""

    brain: str
    servers: list[Any]

    def serve(self, *, key: str, agent_id: str, port: int | None = None, img_src: str | None = None) -> Page:
        """The demo page; ``img_src`` widens its policy's ``img-src`` (the brain alone) to that source list, as on
        the many embedding pages whose policy does not restrict images."""
        server, url = serve_page("127.0.0.1", port or free_port(), brain_url=self.brain, key=key, agent_id=agent_id)
        self.servers.append(server)
        if img_src:
            handler = cast(type[PageHandler], server.RequestHandlerClass)
            csp = re.sub(r"img-src [^;]*", f"img-src {img_src}", handler.csp)
            server.RequestHandlerClass = type("WideImagesHandler", (handler,), {"csp": csp})
        return Page(url, url.rstrip("/"))


@pytest.fixture(scope="package")
def pages(service: LocalService) -> Iterator[Pages]:
    served = Pages(service.brain, [])
    yield served
    for server in served.servers:
        server.shutdown()
        server.server_close()


def set_plan(service: LocalService, email: str, plan: str) -> None:
    """``python -m ops set-plan`` against the runner (a free plan cannot mint keys)."""
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), "set-plan"]
    done = subprocess.run([*command, "--email", email, "--plan", plan],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(done.stdout)["plan"] == plan


@pytest.fixture(scope="package")
def mint_key(service: LocalService) -> Callable[..., str]:
    """Mint a key of a demo workspace through the portal, as its owner: ``mint_key(index, origins, rate_limit)``."""
    jwts: dict[int, str] = {}

    def mint(index: int, allowed_origins: list[str], rate_limit: int = 600) -> str:
        workspace = service.demo["workspaces"][index]
        if index not in jwts:
            set_plan(service, workspace["ownerEmail"], "pro")
            jwts[index] = sign_in(service, workspace["ownerEmail"])[1]
        body = {"name": "brand page", "rateLimit": rate_limit, "allowedOrigins": allowed_origins}
        minted = portal(service, "POST", f"/api/workspaces/{workspace['id']}/keys", jwts[index], body)
        assert minted.status == 201, minted.body
        assert minted.json()["key"]["allowedOrigins"] == allowed_origins
        return minted.json()["key"]["key"]

    return mint


@pytest.fixture(scope="package")
def first(service: LocalService) -> dict[str, Any]:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="package")
def page(pages: Pages, mint_key: Callable[..., str], first: dict[str, Any]) -> Page:
    """The brand's page, on an origin its key allows."""
    port = free_port()
    key = mint_key(0, [f"http://127.0.0.1:{port}"])
    return pages.serve(key=key, agent_id=first["agents"][0]["id"], port=port)
