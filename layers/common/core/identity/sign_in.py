"""Sign-in (magic link, Google, Apple), sessions and portal JWTs.

A session is an opaque random token in the ``session`` cookie, stored only as its
SHA-256. A portal JWT names its session (``sid``); every portal request checks the
session still exists (``sessions.py``), so sign-out takes effect at once, not when tokens expire.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from core.identity import portal_jwt
from core.identity.mail import Mailer, Message
from core.identity.mail_limits import EMAIL, MailLimits, MailThrottle
from core.identity.oidc import JwksCache, VerifiedIdentity, verify_id_token
from core.identity.ports import Users
from core.identity.records import SessionRecord, UserRecord
from core.identity.sessions import PortalCaller, SessionCheck
from core.platform.errors import RateLimited, Unauthorized, ValidationFailed
from core.platform.ids import new_id, now_iso, sha256_hex
from core.platform.rate_limit import SlidingWindowLimiter

SESSION_COOKIE = "session"
INVALID_LINK = "This sign-in link is invalid, used or expired"
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewSession:
    user: UserRecord
    token: str  # the raw cookie value: returned to the browser once, never stored
    max_age: int


@dataclass(frozen=True)
class MagicSignIn:
    """A live magic link's user, before the link is used up (see ``IdentityService.complete_magic_link``)."""

    token_hash: str
    user: UserRecord


class IdentityService:
    def __init__(
        self,
        users: Users,
        mailer: Callable[[], Mailer],
        jwt_secret: Callable[[], bytes],
        jwks: Callable[[str], JwksCache],
        client_ids: Callable[[str], list[str]],
        *,
        portal_app_url: Callable[[], str],
        magic_link_seconds: int,
        session_seconds: int,
        mail_limiter: SlidingWindowLimiter | None = None,
        mail_limits: MailLimits | None = None,
        default_plan: str = "free",
    ):
        self._users = users
        self._mailer = mailer
        self._secret = jwt_secret
        self._jwks = jwks
        self._client_ids = client_ids
        self._app_url = portal_app_url
        self._magic_ttl = magic_link_seconds
        self._session_ttl = session_seconds
        self._default_plan = default_plan
        self._mail_throttle = (
            MailThrottle(mail_limiter, mail_limits) if mail_limiter is not None and mail_limits is not None else None
        )

    # --- sign-in

    def send_magic_link(self, email: str, source_ip: str | None = None) -> None:
        """Mail a single-use link; the same answer whether or not the address has an account or is throttled, but
        for a source network over its limit (429: it tells nothing about an address)."""
        email = email.strip().lower()
        if not EMAIL.match(email) or len(email) > 254:
            raise ValidationFailed("email: must be an e-mail address")
        if not self._may_mail(email, source_ip):
            return  # nothing mailed, nothing stored: the caller cannot tell (no account probing, no inbox bombing)
        app_url = self._app_url()  # before the token is stored: no token is left behind for a link never mailed
        token = secrets.token_urlsafe(32)
        self._users.put_magic_token(sha256_hex(token), email, int(time.time()) + self._magic_ttl)
        link = f"{app_url}?{urlencode({'token': token})}"
        minutes = self._magic_ttl // 60
        text = f"Sign in to your workspace:\n\n{link}\n\nThe link works once, for {minutes} minutes."
        self._mailer().send(Message(to=email, subject="Your sign-in link", text=text, link=link))

    def _may_mail(self, email: str, source_ip: str | None) -> bool:
        """False once the address is over its limit; its source network over its own is a 429 that says so
        (``MailThrottle.address_over_limit``)."""
        if self._mail_throttle is None:
            return True
        try:
            silent = self._mail_throttle.address_over_limit(email, source_ip)
        except RateLimited:
            logger.warning("sign-in mail throttled", extra={"limit": "ip"})
            raise
        if silent:
            logger.warning("sign-in mail throttled", extra={"limit": "address"})
        return not silent

    def open_magic_link(self, token: str) -> MagicSignIn:
        """The live link's user (created on a first sign-in); the link is not used up yet, so it survives a failure."""
        token_hash = sha256_hex(token) if token else ""
        email = self._users.magic_token_email(token_hash) if token else None
        if email is None:
            raise Unauthorized(INVALID_LINK)
        return MagicSignIn(token_hash=token_hash, user=self._user_for(email, name="", image=""))

    def complete_magic_link(self, sign_in: MagicSignIn) -> NewSession:
        """Use up the link and start the session: one transaction, and nothing that can fail after it."""
        session, token = self._new_session(sign_in.user)
        if not self._users.start_session_with_magic_token(sign_in.token_hash, session, sha256_hex(token)):
            raise Unauthorized(INVALID_LINK)  # a concurrent verification got it first, or it has just expired
        return NewSession(user=sign_in.user, token=token, max_age=self._session_ttl)

    def sign_in_with(self, provider: str, id_token: str) -> NewSession:
        identity: VerifiedIdentity = verify_id_token(
            provider, id_token, self._jwks(provider), self._client_ids(provider)
        )
        return self._start_session(self._user_for(identity.email, name=identity.name, image=identity.picture))

    def _user_for(self, email: str, *, name: str, image: str) -> UserRecord:
        """The address's user; its first sign-in creates it (on the deployment's default plan, no credits)."""
        existing = self._users.find_by_email(email)
        if existing:
            return existing
        user = UserRecord(id=new_id("usr"), email=email, name=name, image=image, plan=self._default_plan,
                          created_at=now_iso())  # fmt: skip
        return self._users.create(user)

    def _new_session(self, user: UserRecord) -> tuple[SessionRecord, str]:
        """A session not stored yet, and its raw cookie token."""
        token = secrets.token_urlsafe(32)
        session = SessionRecord(
            id=new_id("ses"), user_id=user.id, created_at=now_iso(), expires_at=int(time.time()) + self._session_ttl
        )
        return session, token

    def _start_session(self, user: UserRecord) -> NewSession:
        session, token = self._new_session(user)
        self._users.create_session(session, sha256_hex(token))
        return NewSession(user=user, token=token, max_age=self._session_ttl)

    # --- portal JWT

    def token_for_cookie(self, cookie_token: str | None) -> str:
        session = self._users.get_session_by_token(sha256_hex(cookie_token)) if cookie_token else None
        if session is None:
            raise Unauthorized("Sign in first")
        return portal_jwt.issue(self._secret(), session.user_id, session.id)

    def refresh(self, caller: PortalCaller) -> str:
        return portal_jwt.issue(self._secret(), caller.user_id, caller.session_id)

    def sign_out(self, bearer: str | None, cookie_token: str | None) -> None:
        """End the session the bearer JWT names, else the cookie's. A bearer that is present but invalid is refused
        (401), as everywhere on the portal; no live session at all is no error (signing out twice is harmless)."""
        if bearer:
            session_id: str | None = SessionCheck(self._users, self._secret).authenticate(bearer).session_id
        else:
            session = self._users.get_session_by_token(sha256_hex(cookie_token)) if cookie_token else None
            session_id = session.id if session else None
        if session_id:
            self._users.end_session(session_id)
