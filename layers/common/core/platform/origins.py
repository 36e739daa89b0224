"""Allowed origins of a browser key: the serialized-origin rules, the read plane's check and its CORS answer.

A key may carry a list of origins (``scheme://host[:port]``). A read-plane request that sends an
``Origin`` not on its key's list is refused (``ORIGIN_NOT_ALLOWED``) and its answer carries no
``Access-Control-Allow-Origin``, so a browser blocks it twice; an allowed one gets its origin echoed
with ``Vary: Origin``. A request without ``Origin`` (curl, servers, ``<img>``/``<video>`` without
``crossorigin``) is not a cross-origin browser call and passes: see docs/security.md for what this
does and does not stop.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

MAX_ORIGINS = 10
MAX_ORIGIN_LENGTH = 253 + len("https://") + len(":65535")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ORIGIN = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^/:?#@\[\]]+)(?::(?P<port>\d{1,5}))?"
)
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def normalize_origin(value: str) -> str:
    """The serialized origin (RFC 6454 §6.2) of ``value``: lower case, default port dropped; ``ValueError``
    naming the rule when it is not one (a path, query, fragment, userinfo, another scheme, a bad host)."""
    found = _ORIGIN.fullmatch(value)
    if not found:
        raise ValueError("must be scheme://host[:port] with no path, query, fragment or user info (no trailing '/')")
    scheme, host, port = found.group("scheme").lower(), found.group("host").lower(), found.group("port")
    if scheme not in _DEFAULT_PORTS:
        raise ValueError("scheme must be http or https")
    if not _valid_host(host):
        raise ValueError("host must be a DNS name (IDNs in punycode), an IPv4 address or a bracketed IPv6 address")
    if port is not None and not 1 <= int(port) <= 65535:
        raise ValueError("port must be 1-65535")
    keep_port = port is not None and int(port) != _DEFAULT_PORTS[scheme]
    return f"{scheme}://{host}" + (f":{int(port)}" if keep_port else "")


def _valid_host(host: str) -> bool:
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    if len(host) > 253:
        return False
    return all(_LABEL.fullmatch(label) for label in host.split("."))


def is_allowed(allowed: Sequence[str] | None, request_origin: str | None) -> bool:
    """Whether a request may go on: no list, or no ``Origin`` sent, or its origin on the list."""
    if allowed is None or request_origin is None:
        return True
    try:
        return normalize_origin(request_origin.strip()) in allowed
    except ValueError:  # "null" (sandboxed frames, file: pages) and anything malformed is on no list
        return False


def cors_headers(allowed: Sequence[str], request_origin: str | None) -> dict[str, str]:
    """The CORS answer for a key restricted to ``allowed``: its own origin echoed when listed, else none.

    ``Vary: Origin`` always: the same URL and key answer differently by origin, so no cache may reuse one
    origin's answer (or a no-``Origin`` answer, which has no ACAO) for another.
    """
    headers = {"Vary": "Origin"}
    if request_origin is not None and is_allowed(allowed, request_origin):
        headers["Access-Control-Allow-Origin"] = request_origin.strip()
    return headers
