"""Who may be mailed a sign-in link: the address check, and the throttle per address and per source network.

Split from ``identity`` (sign-in, sessions, portal JWTs), which asks ``MailThrottle.refusal`` before every
magic-link mail and logs a refusal under its own name.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from core.platform.errors import RateLimited
from core.platform.ids import sha256_hex
from core.platform.rate_limit import SlidingWindowLimiter

EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$")


@dataclass(frozen=True)
class MailLimits:
    """Sign-in mails allowed in any rolling ``window_seconds``, per address and per source network."""

    per_address: int
    per_ip: int
    window_seconds: int


def source_network(source_ip: str) -> str:
    """The unit one sender controls: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64)."""
    try:
        address = ipaddress.ip_address(source_ip)
    except ValueError:
        return source_ip
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@dataclass(frozen=True)
class MailThrottle:
    limiter: SlidingWindowLimiter
    limits: MailLimits

    def refusal(self, email: str, source_ip: str | None) -> str | None:
        """Count the mail against its source network, then its address: the first one over its limit
        (``"ip"`` or ``"address"``), or None when the mail may go.

        The network first: a sender bombing one address spends its own allowance before the
        victim's. Counters are keyed by hashes only (no address or IP in the rate table).
        """
        limits = self.limits
        checks = [("address", f"mail-to#{sha256_hex('magic-link|' + email)}", limits.per_address)]
        if source_ip:
            checks.insert(0, ("ip", f"mail-ip#{sha256_hex('magic-link|' + source_network(source_ip))}", limits.per_ip))
        for kind, subject, limit in checks:
            try:
                self.limiter.take(subject, limit, limits.window_seconds)
            except RateLimited:
                return kind
        return None
