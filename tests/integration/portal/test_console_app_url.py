"""The console's address in mail links on AWS: PORTAL_APP_URL when set, else the SSM parameter the template writes
with the distribution's domain (core.identity.app_url_store; docs/decisions.md, "The console on AWS").

Each test gives the process the mailer's own environment from template.yaml (its PORTAL_APP_URL_PARAMETER), so the
parameter's name, the function's grant and the code that reads it are tested together (tests/support/iam_check.py
judges the SSM call against the function's policy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.platform import aws as platform_aws
from core.platform import providers as platform_providers
from tests.support.authoring import Studio
from tests.support.lambdas import stack
from tests.support.members import invite, link_token
from tests.support.portal import Portal, assert_error

CONSOLE = "https://d1234abcd.cloudfront.net"


def parameter_of(function: str) -> str:
    return stack().functions()[function].environment["PORTAL_APP_URL_PARAMETER"]


@pytest.fixture
def deployed(as_function: Callable[[str], None], monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """The function's environment as a stack deploys it with PortalAppUrl empty (its default)."""

    def apply(function: str) -> None:
        as_function(function)
        monkeypatch.setenv("PORTAL_APP_URL", "")
        platform_providers.reset()

    return apply


def ssm_reads() -> list[str]:
    """Names of the parameters core.platform.aws's SSM client reads from now on."""
    names: list[str] = []

    def heard(params: dict[str, Any], **_: Any) -> None:
        names.append(params["Name"])

    platform_aws.client("ssm").meta.events.register("provide-client-params.ssm.GetParameter", heard)
    return names


def test_the_template_names_one_parameter_for_both_mailers_and_no_other_function() -> None:
    named = {name for name, spec in stack().functions().items() if "PORTAL_APP_URL_PARAMETER" in spec.environment}
    assert named == {"PortalMagicLinkFunction", "PortalInvitationCreateFunction"}
    assert (
        parameter_of("PortalMagicLinkFunction")
        == parameter_of("PortalInvitationCreateFunction")
        == (f"/{stack().stack_name}/console-url")
    )


def test_a_sign_in_link_opens_the_console_the_stack_serves(portal: Portal, deployed: Callable[[str], None]) -> None:
    deployed("PortalMagicLinkFunction")
    portal.aws._client("ssm").put_parameter(Name=parameter_of("PortalMagicLinkFunction"), Value=CONSOLE, Type="String")
    reads = ssm_reads()
    for _ in range(2):
        portal.request_link("owner@example.com")
    links = [m["link"] for m in portal.mails("owner@example.com")]
    assert len(links) == 2 and all(link.startswith(f"{CONSOLE}?token=") for link in links), links
    assert reads == [parameter_of("PortalMagicLinkFunction")]  # read once, then from the container's cache


def test_an_invitation_link_opens_the_console_the_stack_serves(portal: Portal, deployed: Callable[[str], None]) -> None:
    portal.aws._client("ssm").put_parameter(
        Name=parameter_of("PortalInvitationCreateFunction"), Value=f"{CONSOLE}/", Type="String"
    )
    studio = Studio.open(portal)  # its owner signs in first: the mailer's address is then read by the invitation
    deployed("PortalInvitationCreateFunction")
    reads = ssm_reads()
    invite(studio, "new.person@example.com")
    assert reads == [parameter_of("PortalInvitationCreateFunction")]  # read as the invitation function, once
    token = link_token(portal, "new.person@example.com")
    assert portal.mails("new.person@example.com")[-1]["link"] == f"{CONSOLE}/invitations?token={token}"


def test_a_set_portal_app_url_wins_and_nothing_is_read(portal: Portal, as_function: Callable[[str], None],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    as_function("PortalMagicLinkFunction")
    monkeypatch.setenv("PORTAL_APP_URL", "https://console.example.com/")
    platform_providers.reset()
    reads = ssm_reads()
    portal.request_link("owner@example.com")
    assert portal.mails("owner@example.com")[-1]["link"].startswith("https://console.example.com?token=")
    assert reads == []


def test_no_parameter_is_a_500_and_nothing_is_mailed_or_stored(portal: Portal, deployed: Callable[[str], None]) -> None:
    deployed("PortalMagicLinkFunction")
    answer = portal.call("PortalMagicLinkFunction", body={"email": "owner@example.com"})
    assert_error(answer, 500, "INTERNAL_ERROR")
    assert portal.mails() == []
    assert portal.aws.dynamodb.scan(TableName=stack().physical_name("MainTable"))["Items"] == []
