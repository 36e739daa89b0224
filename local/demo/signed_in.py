"""The demo's owners signed in to the portal as a person signs in (a magic link, read from the runner's outbox),
and a file uploaded as the portal app uploads one (a presigned POST straight to the bucket)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from workspace_client import Portal

MAIL_WAIT_SECONDS = 10


def owner_portal(portal_url: str, outbox: Path, email: str) -> Portal:
    """A portal client signed in as ``email``: the link of the sign-in mail it was just sent."""
    before = set(outbox.glob("*.json")) if outbox.exists() else set()
    portal = Portal(portal_url)
    portal.request_magic_link(email=email)
    deadline = time.monotonic() + MAIL_WAIT_SECONDS
    while time.monotonic() < deadline:
        for path in sorted(set(outbox.glob("*.json")) - before):
            mail = json.loads(path.read_text())
            if mail["to"] == email:
                portal.sign_in_with_magic_link(mail["link"])
                return portal
        time.sleep(0.05)
    raise RuntimeError(f"no sign-in mail for {email} in {outbox}")


def upload(portal: Portal, workspace_id: str, path: str, body: bytes, content_type: str) -> None:
    """``body`` stored at the workspace-relative ``path``, through ``POST …/uploads`` and the presigned POST."""
    ticket = portal.create_upload(workspace_id, path=path, content_type=content_type, size=len(body))
    answer = httpx.post(ticket.url, data=ticket.fields, files={"file": (path.rsplit("/", 1)[-1], body, content_type)})
    if answer.status_code >= 300:
        raise RuntimeError(f"upload of {path} refused: {answer.status_code} {answer.text[:300]}")
