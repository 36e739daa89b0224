"""Issue 11, hole 3: sign-in mail is throttled per address and per source IP.

Per address, nobody can tell: every request answers exactly the same 202 {"sent": true}; a throttled one mails
nothing and stores no token. Per source network, the answer says so (issue 28): 429 RATE_LIMITED with Retry-After,
which tells nothing about any address, so that an office behind one address learns why its links stopped.
Defaults (template parameters SignInMailsPerAddress and SignInMailsPerSourceNetwork, docs/decisions.md): 5 per
address and 30 per source IP (an IPv6 /64) in any rolling 15 minutes. Before this, 30 requests for one address in a
second sent 30 mails.
"""

from __future__ import annotations

from typing import Any

from core.platform.settings import get_settings
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.lambdas import invoke
from tests.support.portal import Portal, event_for

VICTIM = "victim@example.com"


def ask(email: str, source_ip: str = "203.0.113.7") -> tuple[int, Any, dict[str, str]]:
    event = event_for("PortalMagicLinkFunction", body={"email": email})
    event["requestContext"]["identity"]["sourceIp"] = source_ip
    result = invoke("PortalMagicLinkFunction", event)
    return result.status, result.json(), result.headers


def stored_tokens(portal: Portal) -> list[dict[str, Any]]:
    items = portal.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
    return [i for i in items if i["pk"]["S"].startswith("MAGIC#")]


def answers_are_identical(answers: list[tuple[int, Any, dict[str, str]]]) -> bool:
    volatile = {"x-amzn-requestid", "x-amz-apigw-id", "date"}
    shapes = {
        (s, repr(b), tuple(sorted((k, v) for k, v in h.items() if k.lower() not in volatile))) for s, b, h in answers
    }
    return len(shapes) == 1 and answers[0][:2] == (202, {"sent": True})


def test_thirty_requests_for_one_address_in_a_second_mail_it_five_times(portal: Portal, clock: Clock) -> None:
    answers = []
    for n in range(30):
        clock.now = WINDOW_START + n / 30
        answers.append(ask(VICTIM, source_ip=f"198.51.100.{n + 1}"))  # many senders: the address limit bites
    assert answers_are_identical(answers)
    assert len(portal.mails(VICTIM)) == 5
    assert len(stored_tokens(portal)) == 5


def test_thirty_requests_from_one_sender_are_all_answered_alike_and_only_five_mailed(
    portal: Portal, clock: Clock
) -> None:
    answers = [ask(VICTIM) for _ in range(30)]
    assert answers_are_identical(answers)
    assert len(portal.mails(VICTIM)) == 5


def told_to_wait(answer: tuple[int, Any, dict[str, str]], *, within: int = 15 * 60 + 15) -> bool:
    """429 with a wait no longer than the window and its last 15 s bucket, and no address in it."""
    status, body, headers = answer
    wait = int(headers.get("Retry-After", "0"))
    return (status, body["code"]) == (429, "RATE_LIMITED") and 1 <= wait <= within and "@" not in body["error"]


def test_one_source_ip_mails_at_most_thirty_addresses_then_is_told_to_wait(portal: Portal, clock: Clock) -> None:
    answers = [ask(f"user{n}@example.com") for n in range(40)]
    assert answers_are_identical(answers[:30])
    assert all(told_to_wait(answer) for answer in answers[30:]), answers[30]
    assert len(portal.mails()) == 30 and len(stored_tokens(portal)) == 30
    assert [len(portal.mails(f"user{n}@example.com")) for n in range(40)] == [1] * 30 + [0] * 10
    ask("user99@example.com", source_ip="192.0.2.44")  # another sender is unaffected
    assert len(portal.mails("user99@example.com")) == 1


def test_an_ipv6_sender_is_limited_per_64_network(portal: Portal, clock: Clock) -> None:
    answers = [ask(f"v6user{n}@example.com", source_ip=f"2001:db8:1:2::{n + 1:x}") for n in range(35)]
    assert len(portal.mails()) == 30 and all(told_to_wait(answer) for answer in answers[30:])
    ask("other@example.com", source_ip="2001:db8:1:3::1")  # the next /64
    assert len(portal.mails("other@example.com")) == 1


def test_mail_is_sent_again_once_the_rolling_window_has_passed(portal: Portal, clock: Clock) -> None:
    clock.now = WINDOW_START + 3
    for _ in range(6):
        ask(VICTIM)
    assert len(portal.mails(VICTIM)) == 5
    clock.now = WINDOW_START + 14.9 * 60  # inside the 15 minutes: still throttled
    ask(VICTIM)
    assert len(portal.mails(VICTIM)) == 5
    clock.now = WINDOW_START + 15 * 60 + 15  # the first 15 s bucket has left the window
    ask(VICTIM)
    assert len(portal.mails(VICTIM)) == 6


def test_the_rate_table_holds_no_address_and_no_ip(portal: Portal, clock: Clock) -> None:
    ask("Private.Person@Example.com", source_ip="198.51.100.200")
    rows = portal.aws.dynamodb.scan(TableName=get_settings().rate_limits_table)["Items"]
    assert len(rows) == 2
    text = repr(rows).lower()
    assert "private.person" not in text and "example.com" not in text and "198.51.100.200" not in text


def test_the_limits_are_settings(portal: Portal, clock: Clock, monkeypatch) -> None:
    from core.platform import providers as platform_providers

    monkeypatch.setenv("MAGIC_LINK_PER_ADDRESS", "2")
    monkeypatch.setenv("MAGIC_LINK_PER_IP", "3")
    platform_providers.reset()
    for _ in range(4):
        ask(VICTIM)
    assert len(portal.mails(VICTIM)) == 2
    answers = [ask(f"other{n}@example.com", source_ip="192.0.2.9") for n in range(4)]
    assert [len(portal.mails(f"other{n}@example.com")) for n in range(4)] == [1, 1, 1, 0]
    assert [status for status, _, _ in answers] == [202, 202, 202, 429]


def test_the_limits_are_template_parameters_of_the_sign_in_function() -> None:
    from stack.template import load

    template = load()
    variables = dict(template["Resources"]["PortalMagicLinkFunction"]["Properties"]["Environment"]["Variables"])
    # Its other variable is where the console's address is kept (tests/integration/portal/test_console_app_url.py).
    assert variables.pop("PORTAL_APP_URL_PARAMETER") == {"Fn::Sub": "/${AWS::StackName}/console-url"}
    assert variables == {"MAGIC_LINK_PER_ADDRESS": {"Ref": "SignInMailsPerAddress"},
                         "MAGIC_LINK_PER_IP": {"Ref": "SignInMailsPerSourceNetwork"}}  # fmt: skip
    defaults = {name: template["Parameters"][name]["Default"] for name in variables.values() for name in name.values()}
    assert defaults == {"SignInMailsPerAddress": 5, "SignInMailsPerSourceNetwork": 30}
