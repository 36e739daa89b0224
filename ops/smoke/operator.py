"""What only the operator may do, with the stack's own tables: a temporary user on a plan, a session, credits.

The session is written exactly as the service writes one after a sign-in (``UserStore.create_session``:
the session and its cookie pointer, keyed by the cookie's SHA-256), so no mail is sent and no endpoint of the
service is bypassed or added: the portal JWT is then minted by the service itself, from the cookie, at
``POST /api/auth/api-token``. It takes write access to the main table, i.e. the operator's AWS credentials, never
anything reachable over HTTP (docs/decisions.md, "The smoke signs in without mail").

``Footprint`` is every id the run created, filled in as each is created, so the cleanup removes exactly them.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from core.credits.store import LedgerStore
from core.identity.records import SessionRecord, UserRecord
from core.identity.store import UserStore
from core.platform.ids import new_id, now_iso, sha256_hex

from .target import Target

SESSION_SECONDS = 3600  # the run's session outlives any run, and the cleanup deletes it anyway
PLAN = "pro"  # keys need a plan with keys (README, Plans)


@dataclass
class Footprint:
    run_id: str
    email: str
    user_id: str | None = None
    session_id: str | None = None
    cookie_hash: str | None = None
    workspace_id: str | None = None
    workspace_slug: str | None = None
    agent_id: str | None = None
    rate_subjects: list[str] = field(default_factory=list)  # RateLimitsTable items the run's requests counted in
    # (method, portal-relative path, Idempotency-Key, JSON body) of each keyed write (recorder.py)
    keyed_writes: list[tuple[str, str, str, object]] = field(default_factory=list)


def new_footprint() -> Footprint:
    run_id = secrets.token_hex(6)
    return Footprint(run_id=run_id, email=f"smoke-{run_id}@smoke.example.com")


def create_user(target: Target, footprint: Footprint) -> str:
    """The temporary user, on ``PLAN``, and a live session; returns the raw ``session`` cookie value."""
    users = UserStore(target.dynamodb, target.main_table)
    user = UserRecord(id=new_id("usr"), email=footprint.email, name="Smoke test", plan=PLAN, created_at=now_iso())
    footprint.user_id = user.id  # before the write: a write that fails in doubt is cleaned up too
    if users.create(user).id != user.id:
        raise RuntimeError(f"{footprint.email} already belongs to another user")
    cookie = secrets.token_urlsafe(32)
    session = SessionRecord(
        id=new_id("ses"), user_id=user.id, created_at=now_iso(), expires_at=int(time.time()) + SESSION_SECONDS
    )
    cookie_hash = sha256_hex(cookie)
    footprint.session_id, footprint.cookie_hash = session.id, cookie_hash
    users.create_session(session, cookie_hash)
    return cookie


def grant(target: Target, footprint: Footprint, credits: int) -> None:
    """Credits for the chat (billed to the agent's owner), as ``ops grant`` gives them: one ledger top-up."""
    assert footprint.user_id is not None
    LedgerStore(target.dynamodb, target.ledger_table).grant(
        footprint.user_id, credits, "topup", f"smoke-{footprint.run_id}", "Smoke test credits"
    )
