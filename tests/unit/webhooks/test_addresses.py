"""SSRF (issue 42): each refused class of address, by literal, by a name resolving to it (an injected resolver), and by
a name whose answer changes between the save and the delivery; https only but where the local runner allows http.
"""

from __future__ import annotations

import pytest

from core.platform.errors import InvalidWebhookUrl
from core.webhooks import addresses
from core.webhooks.addresses import check_url, resolve_safe, target

# (address, words its refusal names): every class authoring.md and the design refuse
REFUSED = [
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("127.0.0.1", "loopback"),
    ("127.8.9.10", "loopback"),
    ("::1", "loopback"),
    ("169.254.169.254", "metadata"),
    ("fd00:ec2::254", "metadata"),
    ("169.254.10.1", "link-local"),
    ("fe80::1", "link-local"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("100.127.255.254", "carrier-grade NAT"),
    ("fc00::1", "unique-local"),
    ("fd12:3456::1", "unique-local"),
    ("0.0.0.0", "unspecified"),  # noqa: S104 - the address refused, not bound
    ("0.1.2.3", "unspecified"),
    ("::", "unspecified"),
    ("::ffff:10.0.0.1", "private"),  # IPv4-mapped
    ("::ffff:169.254.169.254", "metadata"),
    ("::ffff:127.0.0.1", "loopback"),
    ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
    ("64:ff9b::a9fe:a9fe", "metadata"),  # NAT64 of 169.254.169.254
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("192.0.2.10", "reserved"),  # documentation
    ("2001:db8::1", "reserved"),  # documentation
]
PUBLIC = ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"]


def literal_url(address: str, scheme: str = "https") -> str:
    host = f"[{address}]" if ":" in address else address
    return f"{scheme}://{host}/hooks"


def resolver(answers: dict[str, list[str]]) -> addresses.Resolver:
    return lambda host, port: answers.get(host, [])


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_each_refused_class_by_literal(address: str, why: str) -> None:
    with pytest.raises(InvalidWebhookUrl, match=why):
        check_url(literal_url(address), allow_local=False)
    with pytest.raises(InvalidWebhookUrl, match=why):  # and at delivery, the same address named again
        resolve_safe(address, 443, allow_local=False)


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_each_refused_class_by_a_name_resolving_to_it(address: str, why: str) -> None:
    answers = resolver({"hooks.example.com": [address]})
    with pytest.raises(InvalidWebhookUrl, match=why):
        check_url("https://hooks.example.com/in", allow_local=False, resolve=answers)
    with pytest.raises(InvalidWebhookUrl, match=why):
        resolve_safe("hooks.example.com", 443, allow_local=False, resolve=answers)


def test_one_refused_answer_among_public_ones_refuses_the_name() -> None:
    """A client may connect to any answer: all must pass (the worker would otherwise be one lucky pick away)."""
    answers = resolver({"mixed.example.com": ["93.184.216.34", "10.0.0.7"]})
    with pytest.raises(InvalidWebhookUrl, match="private"):
        check_url("https://mixed.example.com/", allow_local=False, resolve=answers)
    with pytest.raises(InvalidWebhookUrl, match="private"):
        resolve_safe("mixed.example.com", 443, allow_local=False, resolve=answers)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    check_url(literal_url(address), allow_local=False)
    assert resolve_safe(address, 443, allow_local=False) == address
    answers = resolver({"hooks.example.com": [address]})
    check_url("https://hooks.example.com/", allow_local=False, resolve=answers)
    assert resolve_safe("hooks.example.com", 443, allow_local=False, resolve=answers) == address


def test_a_name_whose_answer_changes_after_the_save_is_refused_at_delivery() -> None:
    """DNS rebinding: the save sees a public answer, the delivery's own resolution the metadata address; the
    delivery's target is refused (the worker connects only to what ``target`` vetted)."""
    answers = {"rebind.example.com": ["93.184.216.34"]}
    check_url("https://rebind.example.com/hook", allow_local=False, resolve=resolver(answers))
    answers["rebind.example.com"] = ["169.254.169.254"]
    with pytest.raises(InvalidWebhookUrl, match="metadata"):
        target("https://rebind.example.com/hook", allow_local=False, resolve=resolver(answers))


def test_the_target_connects_to_the_vetted_address_with_the_name_kept() -> None:
    answers = resolver({"hooks.example.com": ["2606:4700:4700::1111", "93.184.216.34"]})
    found = target("https://hooks.example.com:8443/in?x=1", allow_local=False, resolve=answers)
    assert found == addresses.Target("https", "hooks.example.com", 8443, "/in?x=1", "93.184.216.34")  # IPv4 first


def test_a_name_that_does_not_resolve_is_refused() -> None:
    with pytest.raises(InvalidWebhookUrl, match="does not resolve"):
        check_url("https://nowhere.example.com/", allow_local=False, resolve=resolver({}))
    with pytest.raises(InvalidWebhookUrl, match="does not resolve"):
        resolve_safe("nowhere.example.com", 443, allow_local=False, resolve=resolver({}))


@pytest.mark.parametrize("url", ["http://93.184.216.34/hook", "ftp://93.184.216.34/", "//93.184.216.34/", "hooks"])
def test_https_only(url: str) -> None:
    with pytest.raises(InvalidWebhookUrl, match="https://"):
        check_url(url, allow_local=False)
    with pytest.raises(InvalidWebhookUrl, match="https://"):
        target(url, allow_local=False)


def test_an_http_url_saved_locally_is_refused_at_delivery_where_local_is_not_allowed() -> None:
    check_url("http://127.0.0.1:8080/hook", allow_local=True)
    with pytest.raises(InvalidWebhookUrl, match="https://"):
        target("http://127.0.0.1:8080/hook", allow_local=False)


def test_allow_local_allows_http_and_loopback_only() -> None:
    check_url("http://127.0.0.1:9000/hook", allow_local=True)
    check_url("http://[::1]:9000/hook", allow_local=True)
    assert resolve_safe("localhost", 80, allow_local=True, resolve=resolver({"localhost": ["127.0.0.1"]})) == (
        "127.0.0.1"
    )
    assert resolve_safe("::ffff:127.0.0.1", 80, allow_local=True) == "127.0.0.1"  # connects to the IPv4 form
    for address, why in REFUSED:
        if why in ("loopback",):
            continue
        with pytest.raises(InvalidWebhookUrl, match=why):
            check_url(literal_url(address, "http"), allow_local=True)
        with pytest.raises(InvalidWebhookUrl, match=why):
            resolve_safe(address, 80, allow_local=True)


def test_credentials_and_zone_indexes_are_refused() -> None:
    with pytest.raises(InvalidWebhookUrl, match="credentials"):
        check_url("https://user:pw@93.184.216.34/", allow_local=False)
    with pytest.raises(InvalidWebhookUrl):
        resolve_safe("fe80::1%eth0", 443, allow_local=False)
