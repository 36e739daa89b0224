"""A new user's whole journey, as README.md's "From an empty workspace to a brand page" tells it, against one runner.

Sign in with the command line (the magic link from the runner's outbox piped on its stdin), create a workspace with
it, publish ``examples/lumen-guide`` with ``workspace-client`` (a dry run, the publish, a second publish with nothing
to do, an export), get a plan with keys and credits from the operator's command (``python -m ops``, as
``make ops``), mint a key restricted to a page's origin (``workspace-client keys mint``), serve that page (an
``index.html`` holding the widget's one tag, in a folder of its own, by ``python -m http.server`` on loopback) and,
in Chromium, see the agent's feed, play one of its videos and get a streamed chat reply. Every step is a real
process or an HTTP call, as a newcomer would make them.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from local.demo.bundles import ensure_media
from stack.template import ROOT
from tests.browser.conftest import free_port
from tests.support import log_scan
from tests.support.brand_widget import OBSERVE_REPLY, Page, chat, loaded, open_page, wait_for
from tests.support.runner import LocalService, portal

pytestmark = pytest.mark.browser

BUNDLE = ROOT / "examples" / "lumen-guide"
CLI = Path(sys.executable).parent / "workspace-client"  # the virtualenv's, as `make serve` installs it
PROMPT = "Which classes do you have for beginners?"


def cli(*args: str, env: dict[str, str], timeout: float = 120) -> str:
    """``workspace-client ARGS`` as a subprocess; its stdout (a failure shows both streams)."""
    command = [str(CLI), *args]
    done = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"workspace-client {args[0]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def outbox(service: LocalService) -> list[dict[str, Any]]:
    """The runner's mails so far (one JSON file each, not written atomically: one being written is skipped)."""
    mails = []
    for path in (service.state_dir / "outbox").glob("*.json"):
        try:
            mails.append(json.loads(path.read_text()))
        except ValueError:
            continue
    return mails


def login(service: LocalService, email: str, env: dict[str, str]) -> str:
    """``workspace-client login``; the link of the mail it has the runner send is piped on its stdin."""
    process = subprocess.Popen(
        [str(CLI), "login", "--portal", service.portal, "--email", email],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        link = None
        deadline = time.monotonic() + 30
        while link is None:
            link = next((m["link"] for m in outbox(service) if m["to"] == email), None)
            if link is None:
                assert process.poll() is None, f"login exited {process.returncode}: {process.communicate()}"
                assert time.monotonic() < deadline, "no sign-in mail reached the outbox"
                time.sleep(0.1)
        out, err = process.communicate(link + "\n", timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, f"login exited {process.returncode}:\n{out}\n{err}"
    return out


def ops(service: LocalService, *args: str) -> dict[str, Any]:
    """``make ops ARGS="…"`` against this runner: ``python -m ops`` with only its own settings (no AWS profile)."""
    env = {"PYTHONPATH": str(ROOT / "layers" / "common"), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), *args]
    done = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"ops {args[0]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def static_server(directory: Path, port: int) -> subprocess.Popen[bytes]:
    """``python3 -m http.server PORT`` in ``directory``, once it accepts connections."""
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(directory)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise AssertionError(f"the page server did not start on port {port}") from None
            time.sleep(0.05)


def expected_captions() -> list[str]:
    """What the widget's first 12 tiles caption: the bundle's published posts, newest first."""
    posts = json.loads((BUNDLE / "posts.json").read_text())
    published = [p for p in posts if p.get("status", "published") == "published"]
    published.sort(key=lambda p: datetime.fromisoformat(p["createdAt"]), reverse=True)
    return [p.get("caption") or p.get("title") or "" for p in published[:12]]


def publish_with_the_cli(service: LocalService, jwt: str, workspace: str, env: dict[str, str], tmp: Path) -> None:
    """The plan first (nothing written), the publish, a second one with nothing to do, and the export."""
    planned = cli("publish", str(BUNDLE), "--workspace", workspace, "--dry-run", env=env)
    assert "create agent guide" in planned and "upload media/video-1.mp4" in planned, planned
    assert portal(service, "GET", f"/api/workspaces/{workspace}/agents", jwt).json()["agents"] == []
    published = cli("publish", str(BUNDLE), "--workspace", workspace, env=env, timeout=180)
    assert f"published guide to {workspace}" in published, published
    again = cli("publish", str(BUNDLE), "--workspace", workspace, env=env)
    assert again.splitlines() == ["agent guide: up to date, nothing to do"], again
    copy = tmp / "my-guide"
    exported = cli("export", "--workspace", workspace, "--agent", "guide", str(copy), env=env)
    assert f"exported guide to {copy}" in exported, exported
    assert json.loads((copy / "agent.json").read_text())["slug"] == "guide"
    assert (copy / "media" / "video-1.mp4").read_bytes() == (BUNDLE / "media" / "video-1.mp4").read_bytes()


def key_for_page(service: LocalService, workspace: str, agent: str, origin: str, env: dict[str, str]) -> str:
    """A key the read plane accepts from ``origin`` only (``keys mint ... --origin ... | cut -f3``)."""
    minted = cli("keys", "mint", "--workspace", workspace, "--name", "my page", "--origin", origin, env=env)
    key = minted.rstrip("\n").split("\t")[2]
    assert key.startswith("sk_ws_"), minted
    log_scan.register_secret(key)  # no log line of the run may hold it
    other = service.brain_get(f"/v1/agent/{agent}/wrap", key, Origin="http://127.0.0.1:1")
    assert (other.status, other.json()["code"]) == (403, "ORIGIN_NOT_ALLOWED"), other.body
    return key


def write_page(site: Path, service: LocalService, key: str, agent: str) -> None:
    """The README's index.html: the widget's one tag (its script from the runner's page server) in the body, since
    the widget renders right after its tag and a tag alone in a file is parsed into ``<head>``."""
    site.mkdir()
    script = html.escape(service.demo["pageUrl"].rstrip("/") + "/brand-widget.js")
    tag = (f'<script src="{script}" async data-brain-url="{html.escape(service.brain)}"\n'
           f'        data-key="{html.escape(key)}" data-agent="{html.escape(agent)}"></script>')  # fmt: skip
    (site / "index.html").write_text(f"<!doctype html>\n<body>\n{tag}\n</body>\n")


def the_page_shows_the_feed(driver: Any) -> None:
    """On screen: the bundle's greeting, and its feed newest first."""
    shown = "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return r.width * r.height > 0"
    for part in (".bw-greeting", ".bw-grid", ".bw-input"):
        assert driver.execute_script(shown, part), f"{part} is not on screen"
    greeting = driver.execute_script("return document.querySelector('.bw-greeting').textContent")
    assert greeting == json.loads((BUNDLE / "wrap.json").read_text())["greeting"]
    captions = driver.execute_script(
        "return [...document.querySelectorAll('.bw-grid .bw-tile')].map((t) => "
        "(t.querySelector('.bw-caption') || {textContent: ''}).textContent)"
    )
    assert captions == expected_captions()


def a_video_plays(driver: Any, agent: str) -> None:
    """The grid's first video, muted (so the autoplay policy allows play()): its time advances."""
    video = "const v = document.querySelector('.bw-grid video');"
    path = driver.execute_script(video + "v.scrollIntoView({block: 'center'}); v.muted = true; return v.dataset.path")
    assert path.startswith(f"projects/{agent}/media/video-"), path
    assert driver.execute_async_script(video + "v.play().then(() => arguments[0]('playing'), "
                                               "(e) => arguments[0](String(e)))") == "playing"  # fmt: skip
    wait_for(driver, video + "return v.currentTime > 0.5")


def a_reply_streams(driver: Any) -> None:
    """A message sent; several distinct, growing texts on screen before the reply is done."""
    driver.execute_script(OBSERVE_REPLY, 0, False)
    chat(driver, PROMPT)
    wait_for(driver, "const r = document.querySelector('.bw-reply'); return r && r.dataset.state !== 'waiting' "
                     "&& r.dataset.state !== 'streaming'")  # fmt: skip
    state, final, error = driver.execute_script(
        "const r = document.querySelector('.bw-reply'); return [r.dataset.state, r.textContent, "
        "document.querySelector('.bw-chat-status').textContent]"
    )
    assert state == "done", (state, final, error)
    streaming = [s["text"] for s in driver.execute_script("return window.__snapshots")
                 if s["state"] == "streaming" and s["text"]]  # fmt: skip
    distinct = list(dict.fromkeys(streaming))
    assert len(distinct) >= 3, distinct
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(distinct))
    assert len(distinct[0]) < len(final) and "Lumen Guide" in final, final


def test_a_new_user_gets_from_an_empty_workspace_to_a_brand_page(
    driver: Any, service: LocalService, tmp_path: Path
) -> None:
    started = time.monotonic()
    # The bundle's media are made on first use (a runner started from a copy of the published demo makes none).
    ensure_media([BUNDLE], ROOT / ".local" / "media-cache")
    email = f"newcomer-{uuid.uuid4().hex[:12]}@example.com"
    session_file = tmp_path / "config" / "session.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "WORKSPACE_CLIENT_"))}
    env["WORKSPACE_CLIENT_SESSION"] = str(session_file)

    # Sign in: the command line mails a link, the link is pasted (piped), the session kept readable by its owner only.
    assert f"Signed in as {email}" in login(service, email, env)
    assert session_file.stat().st_mode & 0o777 == 0o600
    jwt = json.loads(session_file.read_text())["token"]

    # A workspace of one's own (`workspaces create ... | cut -f1`), and the bundle published to it.
    workspace = cli("workspaces", "create", "My studio", env=env).split("\t")[0]
    assert workspace.startswith("ws_"), workspace
    publish_with_the_cli(service, jwt, workspace, env, tmp_path)

    # A plan with keys, and credits for the chat (the operator's commands).
    assert ops(service, "set-plan", "--email", email, "--plan", "pro")["plan"] == "pro"
    assert ops(service, "grant", "--email", email, "--credits", "100", "--ref-id", "welcome")["applied"] is True
    balance = portal(service, "GET", "/api/credits/balance", jwt).json()["balance"]

    # The agent's id, a key for a page on its own origin, and the page, in a folder of its own, served.
    agents = [line.split("\t") for line in cli("agents", "list", "--workspace", workspace, env=env).splitlines()]
    assert [slug for _, slug, _ in agents] == ["guide"]
    agent = agents[0][0]
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    write_page(tmp_path / "my-page", service, key_for_page(service, workspace, agent, origin, env), agent)
    server = static_server(tmp_path / "my-page", port)
    try:
        open_page(driver, Page(origin + "/", origin))
        loaded(driver)
        the_page_shows_the_feed(driver)
        a_video_plays(driver, agent)
        a_reply_streams(driver)
    finally:
        server.terminate()
        server.wait(timeout=10)

    # The turn was billed to the owner.
    after = portal(service, "GET", "/api/credits/balance", jwt).json()["balance"]
    assert after["total"] < balance["total"], (balance, after)
    print(f"\nnewcomer journey: {time.monotonic() - started:.1f} s after the runner started")
