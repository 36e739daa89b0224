"""Every metric the service emits, its unit and its dimensions, each with a bounded set of values.

CloudWatch bills and stores one series per distinct dimension set, and a dimension value is
visible to anyone who can read the metrics: so a dimension is never an id, a path or anything a
caller sent. A value outside its set is recorded as ``other`` (the fact still counts).
"""

from __future__ import annotations

from functools import cache

from core.platform import errors

# Why a credential was refused (the answer is always the same vague 401; the metric tells operators why).
UNAUTHORIZED_REASONS = frozenset(
    {
        "missing",  # no credential at all
        "malformed",  # not a well-formed key or JWT (typos, scanners, the other plane's credential)
        "unknown",  # a well-formed key no record has
        "revoked",  # a revoked key (or a deleted workspace's)
        "invalid_token",  # a JWT that fails verification (forged, garbled, wrong issuer or audience)
        "expired",  # an expired JWT (401 TOKEN_EXPIRED)
        "session_ended",  # a valid JWT whose session is gone (logout, deletion)
        "doubled",  # more than one Authorization header
    }
)
# Which limiter refused (429) or, for sign-in mail, silently held back (202 with no mail).
LIMITERS = frozenset({"key_rate", "chat_visitor", "magic_link_address", "magic_link_ip", "invitation_workspace",
                      "invitation_workspace_address", "invitation_address", "agent_preview",
                      "feedback_visitor"})  # fmt: skip
MODEL_ERROR_CODES = frozenset({"MODEL_UNAVAILABLE", "MODEL_BUSY", "MODEL_REFUSED", "MODEL_TIMEOUT"})


@cache
def error_codes() -> frozenset[str]:
    """Every ``code`` of the one error hierarchy (core.platform.errors)."""
    found, pending = set(), [errors.DomainError]
    while pending:
        cls = pending.pop()
        found.add(cls.code)
        pending.extend(cls.__subclasses__())
    return frozenset(found)


# name: (unit, {dimension: allowed values (a callable for the error codes, read once)})
CATALOGUE: dict[str, tuple[str, dict[str, object]]] = {
    "Requests": ("Count", {}),
    "Errors": ("Count", {"code": error_codes}),
    "Unauthorized": ("Count", {"reason": UNAUTHORIZED_REASONS}),
    "Throttled": ("Count", {"limiter": LIMITERS}),
    "ChatTurns": ("Count", {}),
    "CreditsCharged": ("Count", {}),
    "HoldsReleased": ("Count", {}),
    "R2BytesStreamed": ("Bytes", {}),
    "PurgeObjectsDeleted": ("Count", {}),
    "ModelErrors": ("Count", {"code": MODEL_ERROR_CODES}),
}


def unit_of(metric: str) -> str:
    return CATALOGUE[metric][0]


def bounded_dimensions(metric: str, dimensions: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The metric's dimensions, each value checked against its set (``other`` when outside it).

    Raises ``KeyError`` for a metric or a dimension the catalogue does not name: a programming error.
    """
    allowed_by_name = CATALOGUE[metric][1]
    if set(dimensions) != set(allowed_by_name):
        raise KeyError(f"{metric} takes dimensions {sorted(allowed_by_name)}, not {sorted(dimensions)}")
    bounded = []
    for name, value in sorted(dimensions.items()):
        allowed = allowed_by_name[name]
        values = allowed() if callable(allowed) else allowed
        bounded.append((name, value if value in values else "other"))  # type: ignore[operator]
    return tuple(bounded)
