"""Read-plane authentication: workspace API key (or a URL it signed) → caller, with the key's rate limit applied.

Per request: an offline checksum test, one GetItem by SHA-256, the sliding-window
limiter's GetItem and conditional UpdateItem, and (at most once a minute per key) the
``lastUsedAt`` write (best-effort). Every refusal carries the same vague message.
A key restricted to some origins refuses a browser call from any other before it is counted.

A signed media URL (``auth/media_signing``) is checked offline first (format, expiry, MAC), then
its key id is mapped to the key's hash (the ``byId`` index, cached: the mapping never changes) and
the key read exactly as above, so a revoked key, or a deleted workspace's, fails on the next request;
the request counts against that key's limit like any other.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from core.keys import key_format as api_keys
from core.keys.ports import ApiKeyLookup
from core.keys.records import ApiKeyRecord
from core.objects import signing as media_signing
from core.platform import observability, origins, rate_limit, usage_counters
from core.platform.errors import DomainError, OriginNotAllowed, SignedUrlInvalid, Unauthorized
from core.platform.ids import now_iso
from core.platform.ports import RateCounters
from core.platform.rate_limit import RateStatus, SlidingWindowLimiter
from core.platform.rest.bearer import bearer_token

logger = logging.getLogger(__name__)
VAGUE_MESSAGE = "Invalid or missing API key"
_ID_CACHE_SIZE = 4096
_AGENT_ID = re.compile(r"^prj_[0-9A-Za-z]{1,40}$")  # anything else cannot be an agent: counted for the key only


@dataclass(frozen=True)
class WorkspaceCaller:
    workspace_id: str
    api_key_id: str
    rate: RateStatus
    allowed_origins: tuple[str, ...] | None = None
    signed_until: int | None = None  # a signed media URL's expiry (unix seconds); None for a keyed request


class RefusedOrigin(OriginNotAllowed):
    """``ORIGIN_NOT_ALLOWED``, with the key's list, so the CORS answer can be the key's (no ACAO)."""

    def __init__(self, allowed: tuple[str, ...]):
        super().__init__()
        self.allowed = allowed


class KeyAuthenticator:
    def __init__(
        self,
        keys: ApiKeyLookup,
        limits: RateCounters,
        default_rate_limit: int,
        clock: Callable[[], float] | None = None,
        *,
        signing_secret: Callable[[], bytes] | None = None,
    ):
        self._keys = keys
        self._limiter = SlidingWindowLimiter(limits, clock)
        self._default_rate_limit = default_rate_limit
        self._clock = clock
        self._signing_secret = signing_secret
        self._hash_of_id: OrderedDict[str, str] = OrderedDict()

    def authenticate(
        self, headers: Mapping[str, str] | None, *, origin: str | None = None, agent_id: str | None = None
    ) -> WorkspaceCaller:
        """``agent_id``: the agent the route names (its path), counted in the key's usage for that agent."""
        raw = bearer_token(headers)
        # The checksum turns away typos, portal JWTs and scanners' noise without a lookup.
        if raw is None or not api_keys.is_well_formed(raw):
            observability.count("Unauthorized", reason="missing" if raw is None else "malformed")
            raise Unauthorized(VAGUE_MESSAGE)
        key_hash = api_keys.hash_key(raw)
        record = self._keys.get_by_hash(key_hash)
        if record is None or record.revoked_at is not None:
            observability.count("Unauthorized", reason="unknown" if record is None else "revoked")
            raise Unauthorized(VAGUE_MESSAGE)
        return self._admit(record, origin, agent_id=agent_id)

    def authenticate_signed(
        self, query: Mapping[str, str] | None, path: Callable[[], str], *, origin: str | None = None
    ) -> WorkspaceCaller:
        """The caller a signed media URL stands for. ``path``: the request's object path (it may raise the
        path's own errors; a path that cannot be valid was never signed, so those are ``SIGNED_URL_INVALID``)."""
        params = media_signing.parse(query, (self._clock or rate_limit.now)())  # format and expiry: no I/O at all
        try:
            object_path = path()
        except DomainError as exc:
            raise SignedUrlInvalid() from exc
        if self._signing_secret is None:
            raise SignedUrlInvalid()
        media_signing.verify(self._signing_secret(), params, object_path)  # before any DynamoDB call
        key_hash = self._key_hash(params.key_id)
        record = self._keys.get_by_hash(key_hash) if key_hash else None
        if record is None or record.revoked_at is not None or record.id != params.key_id:
            raise SignedUrlInvalid()
        return self._admit(record, origin, signed_until=params.expires)

    def _key_hash(self, key_id: str) -> str | None:
        """A key id's hash: cached per container (bounded), since a key's hash never changes."""
        if (cached := self._hash_of_id.get(key_id)) is not None:
            self._hash_of_id.move_to_end(key_id)
            return cached
        key_hash = self._keys.hash_of(key_id)
        if key_hash is not None:
            self._hash_of_id[key_id] = key_hash
            if len(self._hash_of_id) > _ID_CACHE_SIZE:
                self._hash_of_id.popitem(last=False)
        return key_hash

    def _admit(
        self, record: ApiKeyRecord, origin: str | None, *, signed_until: int | None = None, agent_id: str | None = None
    ) -> WorkspaceCaller:
        """The origin check (before the request is counted: a page on another site cannot spend the key's
        budget through its visitors' browsers), then the count against the key's limit."""
        allowed = tuple(record.allowed_origins) if record.allowed_origins is not None else None
        if allowed is not None and not origins.is_allowed(allowed, origin):
            raise RefusedOrigin(allowed)
        tags = ("", usage_counters.tag_of(agent_id)) if agent_id and _AGENT_ID.match(agent_id) else ("",)
        rate = self._count_request(record, record.rate_limit or self._default_rate_limit, tags)
        return WorkspaceCaller(
            workspace_id=record.workspace_id, api_key_id=record.id, rate=rate,
            allowed_origins=allowed, signed_until=signed_until,
        )  # fmt: skip

    def _count_request(self, record: ApiKeyRecord, limit: int, tags: tuple[str, ...]) -> RateStatus:
        # The key's usage (requests, and its agent's) is counted by the limiter's own write: no call of its own. Its
        # closed days go to the workspace's day items (the window item holds only the open day: usage_counters).
        key_id, key_hash = record.id, record.key_hash
        hand_on = usage_counters.HandOn(workspace_id=record.workspace_id, key_id=key_id)
        status = self._limiter.take(f"key#{key_id}", limit, tags=tags, hand_on=hand_on)
        if status.new_minute:  # the key's first request counted in this clock minute: lastUsedAt within a minute
            try:
                self._keys.touch_last_used(key_hash, now_iso())
            except Exception:
                # Bookkeeping only: the request is already counted, so failing it would cost the caller a
                # place in the window for nothing. The key (or its hash) never goes to the log; its id may.
                logger.warning("lastUsedAt was not updated", extra={"apiKeyId": key_id})
        return status
