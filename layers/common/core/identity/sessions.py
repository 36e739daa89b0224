"""The session check every authenticated portal request makes: a portal JWT whose session is still live.

Apart from sign-in (``service.py``) so a portal function's first request loads the JWT check and the session
lookup, not the magic link's mail, its throttle or the ID tokens' keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.identity import portal_jwt
from core.identity.ports import Users
from core.platform import observability
from core.platform.errors import TokenExpired, Unauthorized


@dataclass(frozen=True)
class PortalCaller:
    user_id: str
    session_id: str


class SessionCheck:
    def __init__(self, users: Users, jwt_secret: Callable[[], bytes]):
        self._users = users
        self._secret = jwt_secret

    def authenticate(self, bearer: str | None) -> PortalCaller:
        """A valid portal JWT whose session is still live (``TokenExpired`` past ``exp``)."""
        if not bearer:
            observability.count("Unauthorized", reason="missing")
            raise Unauthorized("Missing bearer token")
        try:
            claims = portal_jwt.verify(bearer, self._secret())
        except (TokenExpired, Unauthorized) as refused:
            reason = "expired" if isinstance(refused, TokenExpired) else "invalid_token"
            observability.count("Unauthorized", reason=reason)
            raise
        session = self._users.get_session(claims.session_id)
        if session is None or session.user_id != claims.user_id:
            observability.count("Unauthorized", reason="session_ended")
            raise Unauthorized("Session has ended; sign in again")
        return PortalCaller(user_id=claims.user_id, session_id=claims.session_id)
