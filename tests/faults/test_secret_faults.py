"""The signing secrets read from Secrets Manager by a cold container (``cold = True``: the act starts with them
unread, as after a cold start or their five minutes), failed at every AWS call: the portal's JWT minted from a
session cookie (``POST /api/auth/token``), and media URLs signed on the read plane (``POST /v1/media-urls``).
A JWT checked by a cold container is ``post-publish-cold`` in ``test_authoring_faults.py``.

Afterwards: the clean answer or a framed 5xx (never a 401 that would sign a user out, nor an unframed 500); the
client's retry is answered, and what it got works: the JWT opens the account, each signed URL verifies with the
secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from core.objects import signing as media_signing
from core.platform import providers as platform_providers
from core.platform import rate_limit
from core.platform.ids import new_id
from tests.faults.test_authoring_faults import signed_in
from tests.support.fault_harness import World, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult, invoke, sample_event, stack, with_request
from tests.support.portal import Session
from tests.support.seed import Seeder


def refused_under(result: HttpResult, fault: Fault | None) -> None:
    body = framed_error(result)
    assert fault is not None, f"a clean run answered {result.status} {body}"
    assert result.status >= 500, f"{result.status} {body} under {fault.name}: a backend's failure is not the client's"


@dataclass(frozen=True)
class TokenScenario:
    name: str = "secret-api-token"
    cold: bool = True

    def arrange(self, world: World) -> Session:
        return signed_in(world, f"{new_id('u').lower()}@example.com")

    def act(self, world: World, state: Session) -> HttpResult:
        return world.portal.api_token(state.cookie)

    def verify(self, world: World, state: Session, result: HttpResult, fault: Fault | None) -> None:
        if result.status != 200:
            refused_under(result, fault)
            result = world.portal.api_token(state.cookie)  # the page asks again
        assert result.status == 200, f"the session no longer mints a JWT: {result.body}"
        account = world.portal.call("PortalAccountFunction", token=result.json()["token"])
        assert account.status == 200, f"the minted JWT does not open the account: {account.body}"
        assert account.json()["id"] == state.user_id

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


MEDIA_URLS = "BrainMediaUrlsFunction"
PATHS = ["assets/logo.png", "assets/menu.pdf"]
FROZEN = 1_800_000_000.0 + 7.5


@dataclass(frozen=True)
class MediaUrlsScenario:
    name: str = "secret-media-urls"
    cold: bool = True

    def prepare(self, world: World) -> None:
        for name, value in stack().functions()[MEDIA_URLS].environment.items():  # its secret's id among them
            if name != "AWS_LAMBDA_EXEC_WRAPPER":
                world.monkeypatch.setenv(name, value)
        world.monkeypatch.setattr(rate_limit, "now", lambda: FROZEN)  # one minute: the retry is not rate limited
        platform_providers.reset()

    def arrange(self, world: World) -> str:
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"))
        return seed.api_key(workspace.id)

    def sign(self, key: str) -> HttpResult:
        event = with_request(sample_event(MEDIA_URLS), headers={"Authorization": f"Bearer {key}"},
                             body='{"paths": ["assets/logo.png", "assets/menu.pdf"]}')  # fmt: skip
        return invoke(MEDIA_URLS, event)

    def act(self, world: World, key: str) -> HttpResult:
        return self.sign(key)

    def verify(self, world: World, key: str, result: HttpResult, fault: Fault | None) -> None:
        if result.status != 200:
            refused_under(result, fault)
            result = self.sign(key)
        assert result.status == 200, result.body
        urls = result.json()["urls"]
        assert [u["path"] for u in urls] == PATHS, urls
        secret = platform_providers.media_url_secret()
        for path, url in ((u["path"], u["url"]) for u in urls):
            params = media_signing.parse(dict(parse_qsl(urlsplit(url).query)), FROZEN)
            media_signing.verify(secret, params, path)  # raises if the URL was signed with anything else

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [TokenScenario(), MediaUrlsScenario()]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
