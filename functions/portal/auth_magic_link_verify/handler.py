"""POST /api/auth/magic-link/verify {token}: consume the link's token, start a session (cookie), return the user.

Only this POST consumes a token: a mail scanner prefetching the link (a GET of the
portal app) cannot burn it.
"""

from core.http import json_response, parse_body, portal_api
from core.identity import providers as identity
from core.identity.models import MagicLinkVerifyRequest, SignInResponse
from core.platform.contract import contract
from core.platform.cookies import session_cookie
from core.platform.errors import NotFound, Unauthorized, ValidationFailed
from core.platform.settings import get_settings
from core.workspaces import providers as workspaces

app = portal_api(authenticated=False)


@app.post("/api/auth/magic-link/verify")
@contract(
    "Sign in with a magic link's token",
    body=MagicLinkVerifyRequest,
    response=SignInResponse,
    auth="none",
    errors=(ValidationFailed, Unauthorized, NotFound),
    response_headers=("Set-Cookie",),
)
def verify_magic_link():
    service = identity.sign_in()
    sign_in = service.open_magic_link(parse_body(app, MagicLinkVerifyRequest).token)
    account = workspaces.service().account(
        sign_in.user.id
    )  # read before the link is used up: a failure here is retryable
    session = service.complete_magic_link(sign_in)  # one transaction; nothing after it can fail
    cookie = session_cookie(session.token, session.max_age, secure=get_settings().cookie_secure)
    return json_response(SignInResponse(user=account), cookies=[cookie])


def lambda_handler(event, context):
    return app.resolve(event, context)
