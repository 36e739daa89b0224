"""The sign-in mail as deployed: ``MAIL_TRANSPORT`` is ``ses`` unless a local run says otherwise, so the magic-link
function sends through SES from ``MAIL_FROM`` (moto's SES keeps what it was sent).

This is also the test that holds the function's ``ses:SendEmail`` grant (tests/support/iam_check.py judges the call
against the template's policy): every other sign-in test writes its mail to an outbox.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from moto.ses.models import ses_backends

from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from stack.template import ACCOUNT_ID
from tests.support.portal import JSON, Portal


@pytest.fixture
def sent(aws: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """SES with the template's sender verified, as an operator sets it up; the messages it accepted."""
    monkeypatch.delenv("MAIL_TRANSPORT", raising=False)
    platform_providers.reset()
    assert get_settings().mail_transport == "ses"
    region = boto3.session.Session().region_name
    boto3.client("ses").verify_email_identity(EmailAddress=get_settings().mail_from)
    return ses_backends[ACCOUNT_ID][region].sent_messages


@pytest.fixture
def portal(aws: Any, tmp_path: Path) -> Portal:
    """The portal's handlers, without the integration suite's outbox: mail goes through SES."""
    return Portal(aws, tmp_path / "no-outbox")


def link_token(text: str) -> str:
    (link,) = [word for word in text.split() if "?token=" in word]
    return parse_qs(urlsplit(link).query)["token"][0]


def test_the_link_is_sent_through_ses_from_the_configured_sender_and_signs_in(sent: list[Any], portal: Portal) -> None:
    answer = portal.call("PortalMagicLinkFunction", body={"email": "New@Example.com"})
    assert (answer.status, answer.header("Content-Type"), answer.json()) == (202, JSON, {"sent": True})

    (message,) = sent
    assert message.source == get_settings().mail_from
    assert message.destinations == {"ToAddresses": ["new@example.com"]}
    assert "15 minutes" in message.body
    verified = portal.verify(link_token(message.body))
    assert verified.status == 200 and verified.json()["user"]["email"] == "new@example.com"


def test_a_refusal_by_ses_is_a_500_whose_log_names_the_error_not_the_address(
    sent: list[Any], portal: Portal, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """SES refuses mail from an unverified sender (as it refuses an unverified recipient in a sandboxed account,
    in a message that names the address): the caller gets the spec's INTERNAL_ERROR, the log SES's code alone."""
    boto3.client("ses").delete_identity(Identity=get_settings().mail_from)
    answer = portal.call("PortalMagicLinkFunction", body={"email": "a@example.com"})
    assert (answer.status, answer.json()) == (500, {"error": "Internal error", "code": "INTERNAL_ERROR"})
    assert sent == []
    (refusal,) = [record for record in caplog.records if record.getMessage() == "mail not sent"]
    assert refusal.awsError == "MessageRejected"  # type: ignore[attr-defined]  # an ``extra`` field
    logged = capsys.readouterr().out + caplog.text
    assert "a@example.com" not in logged and get_settings().mail_from not in logged and "Traceback" not in logged


def test_an_invitation_is_mailed_through_ses_too(sent: list[Any], portal: Portal) -> None:
    """The invitation's mail goes the sign-in mail's way (this holds its function's ``ses:SendEmail``)."""
    answer = portal.call("PortalMagicLinkFunction", body={"email": "owner@example.com"})
    assert answer.status == 202
    verified = portal.verify(link_token(sent[-1].body))
    cookie = str(verified.header("Set-Cookie")).split(";", 1)[0]
    jwt = portal.api_token(cookie).json()["token"]
    owner = portal.call("PortalAccountFunction", token=jwt).json()["id"]
    portal.users.set_plan(owner, "pro")
    workspace = portal.call("PortalWorkspacesCreateFunction", token=jwt, body={"name": "Acme"}).json()["workspace"]
    invited = portal.call("PortalInvitationCreateFunction", token=jwt, params={"workspaceId": workspace["id"]},
                          body={"email": "invitee@example.com", "role": "member"})  # fmt: skip
    assert invited.status == 201, invited.body
    message = sent[-1]
    assert message.destinations["ToAddresses"] == ["invitee@example.com"]
    assert "/invitations?token=" in message.body and link_token(message.body)
