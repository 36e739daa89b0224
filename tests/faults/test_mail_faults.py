"""Mail through SES (moto's, ``MAIL_TRANSPORT=ses``) failed at every AWS call of the requests that send it: a
sign-in link asked for, and an invitation made (with and without ``Idempotency-Key``).

Afterwards: the client got the clean answer or a framed 5xx (never an unframed 500); after a failure the client's
retry is answered, and the last mail SES took carries a link that works: the sign-in link signs in, the invitation's
link lets the invitee join, once, in the role asked. A link is never half issued: what the user can follow works.
(``test_magic_link_faults.py`` fails the link's verification; the sign-in's mail limits are its DynamoDB calls here.)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from core.platform import idempotency_store
from core.platform import providers as platform_providers
from core.platform.ids import new_id
from core.platform.settings import get_settings
from tests.faults.test_authoring_faults import LaterClock, signed_in
from tests.support.fault_harness import World, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult, invoke, stack
from tests.support.portal import Session, event_for
from tests.support.seed import Seeder

LINK = re.compile(r"https?://\S+")


def ses_backend() -> Any:
    return ses_backends[DEFAULT_ACCOUNT_ID][os.environ.get("AWS_DEFAULT_REGION", "us-east-1")]


def mail_through_ses(world: World) -> None:
    """The functions send with SES; its sender verified in moto, and no mail of an earlier case left."""
    world.monkeypatch.setenv("MAIL_TRANSPORT", "ses")
    platform_providers.reset()
    backend = ses_backend()
    backend.sent_messages.clear()
    ses_backend().verify_email_identity(get_settings().mail_from)  # moto's own: not a call of the functions


def tokens_mailed(to: str) -> list[str]:
    """The link tokens of the mails SES took for ``to``, oldest first."""
    found = []
    for message in ses_backend().sent_messages:
        if to in [a for addresses in message.destinations.values() for a in addresses]:
            link = LINK.search(message.body)
            assert link is not None, message.body
            found.append(parse_qs(urlsplit(link.group(0)).query)["token"][0])
    return found


def refused_under(result: HttpResult, fault: Fault | None) -> None:
    """A framed 5xx, or the 409 of a keyed request whose claim lost its race."""
    body = framed_error(result)
    assert fault is not None, f"a clean run answered {result.status} {body}"
    assert result.status >= 500 or (result.status == 409 and fault.conditional), f"{result.status} {body}: {fault}"


@dataclass(frozen=True)
class SignInMailScenario:
    name: str = "mail-sign-in"

    def prepare(self, world: World) -> None:
        mail_through_ses(world)

    def arrange(self, world: World) -> str:
        return f"{new_id('u').lower()}@example.com"

    def ask(self, world: World, email: str) -> HttpResult:
        return world.portal.call("PortalMagicLinkFunction", body={"email": email})

    def act(self, world: World, email: str) -> HttpResult:
        return self.ask(world, email)

    def verify(self, world: World, email: str, result: HttpResult, fault: Fault | None) -> None:
        if result.status != 202:
            refused_under(result, fault)
            result = self.ask(world, email)  # the user asks again
        assert (result.status, result.json()) == (202, {"sent": True}), result.body
        mailed = tokens_mailed(email)
        assert mailed, "answered sent, and SES took no mail"
        signed = world.portal.verify(mailed[-1])
        assert signed.status == 200, f"the mailed link does not sign in: {signed.body}"
        assert signed.json()["user"]["email"] == email

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


CONSOLE = "https://d1234abcd.cloudfront.net"


@dataclass(frozen=True)
class ConsoleAddressScenario(SignInMailScenario):
    """A stack deployed with PortalAppUrl empty (its default): the link's address is the console's, read from the
    SSM parameter the template writes, by a container that has not read it yet, so SSM is failed too."""

    name: str = "mail-sign-in-console-address"

    def prepare(self, world: World) -> None:
        parameter = stack().functions()["PortalMagicLinkFunction"].environment["PORTAL_APP_URL_PARAMETER"]
        world.monkeypatch.setenv("PORTAL_APP_URL", "")
        world.monkeypatch.setenv("PORTAL_APP_URL_PARAMETER", parameter)
        world.aws._client("ssm").put_parameter(Name=parameter, Value=CONSOLE, Type="String", Overwrite=True)
        mail_through_ses(world)  # resets the providers: the address is read again by the act

    def verify(self, world: World, email: str, result: HttpResult, fault: Fault | None) -> None:
        super().verify(world, email, result, fault)
        (last,) = [m for m in ses_backend().sent_messages if email in str(m.destinations)][-1:]
        assert f"{CONSOLE}?token=" in last.body, "the mailed link does not open the console the stack serves"


@dataclass(frozen=True)
class Invited:
    owner: Session
    workspace_id: str
    email: str
    key: str | None


@dataclass(frozen=True)
class InvitationMailScenario:
    name: str
    idempotent: bool = False

    def prepare(self, world: World) -> None:
        mail_through_ses(world)

    def arrange(self, world: World) -> Invited:
        owner = signed_in(world, f"{new_id('o').lower()}@example.com")
        user = world.portal.users.get(owner.user_id)
        assert user is not None
        workspace = Seeder(world.aws.dynamodb).workspace(user, "Team")
        key = f"idem-{workspace.id}" if self.idempotent else None
        return Invited(owner, workspace.id, f"{new_id('i').lower()}@example.com", key)

    def invite(self, world: World, state: Invited) -> HttpResult:
        event = event_for("PortalInvitationCreateFunction", token=state.owner.token,
                          params={"workspaceId": state.workspace_id}, body={"email": state.email, "role": "member"},
                          headers={"Idempotency-Key": state.key})  # fmt: skip
        return invoke("PortalInvitationCreateFunction", event)

    def act(self, world: World, state: Invited) -> HttpResult:
        return self.invite(world, state)

    def verify(self, world: World, state: Invited, result: HttpResult, fault: Fault | None) -> None:
        if result.status != 201:
            refused_under(result, fault)
            result = self.invite(world, state)  # the owner invites again
            if result.status == 409:  # a keyed first attempt still "in progress": once more, past its lock
                framed_error(result)
                world.monkeypatch.setattr(idempotency_store, "time", LaterClock())
                result = self.invite(world, state)
        assert result.status == 201, result.body
        mailed = tokens_mailed(state.email)
        assert mailed, "the invitation was answered made, and SES took no mail: the invitee has no link"
        invitee = signed_in(world, state.email)
        joined = world.portal.call("PortalInvitationAcceptFunction", token=invitee.token, body={"token": mailed[-1]})
        assert joined.status == 200, f"the mailed invitation does not let the invitee in: {joined.body}"
        assert joined.json()["workspace"]["id"] == state.workspace_id

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        # Closed: a keyed retry's replay mails a new link when the first attempt's mail failed or its answer was
        # lost before the invitation was marked mailed (core/workspaces/invitations.py, InvitationService._mail_again).
        return None


SCENARIOS = [
    SignInMailScenario(),
    ConsoleAddressScenario(),
    InvitationMailScenario("mail-invitation"),
    InvitationMailScenario("mail-invitation-idem", idempotent=True),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
