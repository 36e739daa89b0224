"""Who may be mailed a sign-in link: the address check, and the throttle per address and per source network.

Split from ``identity`` (sign-in, sessions, portal JWTs), which asks ``MailThrottle.address_over_limit`` before
every magic-link mail and logs a refusal under its own name.
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

    def address_over_limit(self, email: str, source_ip: str | None) -> bool:
        """Count the mail against its source network, then its address.

        Over the network's limit: ``RateLimited`` (429 with ``Retry-After``). It says nothing about any account,
        and an office behind one address must learn why its sign-in links stopped (docs/decisions.md). Over the
        address's: True, and the caller mails nothing and answers as if it had, since telling would let anyone
        learn that an address is being signed in. The network first: a sender bombing one address spends its own
        allowance before the victim's. Counters are keyed by hashes only (no address or IP in the rate table).
        """
        limits = self.limits
        if source_ip:
            network = f"mail-ip#{sha256_hex('magic-link|' + source_network(source_ip))}"
            self.limiter.take(network, limits.per_ip, limits.window_seconds)
        try:
            self.limiter.take(f"mail-to#{sha256_hex('magic-link|' + email)}", limits.per_address, limits.window_seconds)
        except RateLimited:
            return True
        return False
