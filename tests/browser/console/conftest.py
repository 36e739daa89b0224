"""The owner's console (console/dist) in headless Chromium against a runner of its own.

Fixtures for every console test module (one package, one runner):
- ``service``: the runner (``LocalService``; ``service.demo["consoleUrl"]`` is the console, with ``/api/*`` proxied
  to the portal on the same origin). It overrides the widget tests' ``service`` here, so ``mint_key``, ``first`` and
  ``set_plan`` from tests/browser/conftest.py work against it too.
- ``console``: a ``tests.support.console.Console`` on the session's Chromium, its cookies cleared first (each test
  signs in as whom it needs): ``console.sign_in(email)``, ``console.open(path)``, ``console.wait_text(...)``,
  ``console.screenshot(name)``, ``console.axe(name)``, ``console.api(email, method, path, body)``.
- ``cross_site_origin``: ``http://localhost:<port>``, another site than the runner's 127.0.0.1, which the portal's
  CORS lets read its answers (PORTAL_ALLOW_ORIGIN): test_console_serving.py shows its calls still hold no session.

The console must be built first (``make console``; ``make test`` builds it): without console/dist every test here
fails, saying so, instead of testing a page that says "not built".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from local.console import DIST
from tests.browser.conftest import free_port
from tests.support.console import Console
from tests.support.runner import LocalService, started_service


@pytest.fixture(scope="package")
def console_built() -> None:
    if not (DIST / "index.html").is_file():
        pytest.fail(f"the console is not built ({DIST}/index.html is missing): run `make console` first")


@pytest.fixture(scope="package")
def cross_site_origin() -> str:
    """An origin on another site than the runner's pages (localhost vs 127.0.0.1), its port picked before the runner
    starts: the portal's CORS names it, so a page there reads the portal's answers and only the cookie rules differ."""
    return f"http://localhost:{free_port()}"


@pytest.fixture(scope="package")
def service(
    browser_available: None, console_built: None, cross_site_origin: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalService]:
    """A runner of the console tests' own (they sign people in, create workspaces, spend credits)."""
    state = tmp_path_factory.mktemp("console-state")
    # OFFLINE_MODEL_GATE: a prompt with [[offline-gate]] waits after its first delta until the file `offline-gate`
    # exists in the state directory (test_agents.py: the preview shows that delta before the rest is written).
    # WEBHOOK_ALLOW_LOCAL: test_webhooks_page.py's receiver is on loopback (http://127.0.0.1), which only a local
    # runner may allow; WEBHOOK_RETRY_SECONDS: its failing receiver's delivery ends failed in seconds, not 32 hours.
    env = {"PORTAL_ALLOW_ORIGIN": cross_site_origin, "OFFLINE_MODEL_GATE": str(state / "offline-gate"),
           "WEBHOOK_ALLOW_LOCAL": "true", "WEBHOOK_RETRY_SECONDS": "1,1,1,1,1,1,1"}  # fmt: skip
    yield from started_service(state, function_env=env)


@pytest.fixture
def console(driver: Any, service: LocalService) -> Console:
    """The console in the session's browser, signed out (every cookie of the browser cleared)."""
    page = Console(driver, service)
    page.reset()
    return page
