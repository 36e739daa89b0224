"""Where a webhook may send (SSRF): an address a delivery may reach is a public unicast one.

Checked when a webhook is saved (``check_url``: the URL's scheme, and every address its host resolves to) and again at
each delivery, on the address the delivery connects to (so a DNS answer that changes after the save is caught).
Refused: private (RFC 1918), loopback, link-local (169.254/16, fe80::/10: the metadata address 169.254.169.254 among
them), carrier-grade NAT (100.64/10), IPv6 unique-local (fc00::/7: fd00:ec2::254 among them), 0.0.0.0/8, multicast,
reserved and documentation ranges; an IPv6 form that carries an IPv4 address (IPv4-mapped, 6to4, NAT64, Teredo) is
judged by that IPv4 address. ``allow_local`` (the setting ``WEBHOOK_ALLOW_LOCAL``: the local runner and tests only)
allows ``http://`` and loopback, never another class.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.platform.errors import InvalidWebhookUrl

type Address = ipaddress.IPv4Address | ipaddress.IPv6Address
type Resolver = Callable[[str, int], Sequence[str]]

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
_RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


def system_resolve(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives ``host`` (an empty list when it gives none)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (IPv4-mapped, 6to4, NAT64's well-known prefix, Teredo's client)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.teredo is not None:
        return address.teredo[1]
    return None


def refusal(address: Address, *, allow_local: bool) -> str | None:
    """Why no delivery may go to ``address`` (a class of addresses, for the caller's message), or None."""
    if isinstance(address, ipaddress.IPv6Address) and (inner := embedded_ipv4(address)) is not None:
        return refusal(inner, allow_local=allow_local)
    if address in _METADATA:
        return "a cloud metadata address"
    if address.is_loopback:
        return None if allow_local else "a loopback address"
    if address.is_unspecified or (isinstance(address, ipaddress.IPv4Address) and address.packed[0] == 0):
        return "an unspecified address"
    if address.is_link_local:
        return "a link-local address"
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "a carrier-grade NAT address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv6Address) and address in ipaddress.IPv6Network("fc00::/7"):
        return "a unique-local address"
    if isinstance(address, ipaddress.IPv4Address) and any(address in network for network in _RFC1918):
        return "a private address"
    # What is left of Python's "private" (IANA's special-purpose registries: documentation, benchmarking, 240/4, the
    # broadcast address, ...) and anything not globally routed
    if address.is_private or address.is_reserved or not address.is_global:
        return "a reserved or special-purpose address"
    return None


def check_address(text: str, *, allow_local: bool) -> Address:
    """``text`` as an address a delivery may reach; ``InvalidWebhookUrl`` saying why not."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # a zone index names a link, not another address
    except ValueError as exc:
        raise InvalidWebhookUrl(f"url: {text!r} is not an IP address") from exc
    if "%" in text:
        raise InvalidWebhookUrl("url: an address with a zone index is a link-local address")
    if (why := refusal(address, allow_local=allow_local)) is not None:
        raise InvalidWebhookUrl(f"url: {address} is {why}; a webhook must reach a public address")
    return address


def check_url(url: str, *, allow_local: bool, resolve: Resolver = system_resolve) -> None:
    """A webhook's URL as saved: ``https://`` (``http://`` too with ``allow_local``), a host and no credentials, and
    every address its host resolves to (or the literal address it names) allowed; ``InvalidWebhookUrl`` otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhookUrl(f"url: not a URL ({exc})") from exc
    schemes = ("https", "http") if allow_local else ("https",)
    if parts.scheme.lower() not in schemes:
        raise InvalidWebhookUrl("url: must start with https://")
    host = parts.hostname
    if not host:
        raise InvalidWebhookUrl("url: names no host")
    if parts.username is not None or parts.password is not None:
        raise InvalidWebhookUrl("url: must not hold credentials (user:password@)")
    port = port or (443 if parts.scheme.lower() == "https" else 80)
    try:
        literal: Address | None = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        literal = None
    if literal is not None:
        check_address(host, allow_local=allow_local)
        return
    addresses = resolve(host, port)
    if not addresses:
        raise InvalidWebhookUrl(f"url: the host {host!r} does not resolve")
    for address in addresses:  # every answer must pass: a client may connect to any of them
        try:
            check_address(address, allow_local=allow_local)
        except InvalidWebhookUrl as exc:
            raise InvalidWebhookUrl(f"url: {host} resolves to {exc.message.removeprefix('url: ')}") from None


@dataclass(frozen=True)
class Target:
    """Where one delivery attempt connects: the URL's scheme, host name (the TLS server name and the ``Host`` header),
    port and path, and the vetted address the connection is made to (never the name again: a resolver asked twice
    may answer differently the second time, DNS rebinding)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def preferred(addresses: Sequence[Address]) -> Address:
    """The address to connect to: IPv4 first (a Lambda function outside a VPC has no IPv6 route out)."""
    return next((a for a in addresses if isinstance(a, ipaddress.IPv4Address)), addresses[0])


def connectable(address: Address) -> Address:
    """An IPv4-mapped or -compatible IPv6 form connects to its IPv4 address (judged as that address already)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def resolve_safe(host: str, port: int, *, allow_local: bool, resolve: Resolver = system_resolve) -> str:
    """The address one delivery connects to for ``host``: resolved now and every answer allowed (any refused answer
    refuses them all, as at save), or ``InvalidWebhookUrl`` saying why; a literal address is judged as it is."""
    try:
        literal: Address | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None or "%" in host:
        return str(connectable(check_address(host, allow_local=allow_local)))
    answers = resolve(host, port)
    if not answers:
        raise InvalidWebhookUrl(f"url: the host {host!r} does not resolve")
    vetted: list[Address] = []
    for answer in answers:
        try:
            vetted.append(check_address(answer, allow_local=allow_local))
        except InvalidWebhookUrl as exc:
            raise InvalidWebhookUrl(f"url: {host} resolves to {exc.message.removeprefix('url: ')}") from None
    return str(connectable(preferred(vetted)))


def target(url: str, *, allow_local: bool, resolve: Resolver = system_resolve) -> Target:
    """Where a delivery to the saved ``url`` connects now: the URL checked again (the setting may have changed since
    the save: an ``http://`` URL saved locally is refused where ``allow_local`` is off) and its host resolved by
    ``resolve_safe``."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhookUrl(f"url: not a URL ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in (("https", "http") if allow_local else ("https",)):
        raise InvalidWebhookUrl("url: must start with https://")
    host = parts.hostname
    if not host or parts.username is not None or parts.password is not None:
        raise InvalidWebhookUrl("url: names no host, or holds credentials")
    port = port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    address = resolve_safe(host, port, allow_local=allow_local, resolve=resolve)
    return Target(scheme=scheme, host=host, port=port, path=path, address=address)
