"""POST /api/auth/oauth/{provider} {idToken}: sign in with a Google or Apple ID token."""

from core.http import json_response, parse_body, portal_api
from core.identity import providers as identity
from core.identity.models import IdTokenRequest, SignInResponse
from core.platform.contract import contract
from core.platform.cookies import session_cookie
from core.platform.errors import NotFound, Unauthorized, ValidationFailed
from core.platform.settings import get_settings
from core.workspaces import providers as workspaces

app = portal_api(authenticated=False)
PROVIDERS = ("google", "apple")


@app.post("/api/auth/oauth/<provider>")
@contract(
    "Sign in with a Google or Apple ID token",
    body=IdTokenRequest,
    response=SignInResponse,
    auth="none",
    errors=(NotFound, ValidationFailed, Unauthorized),
    response_headers=("Set-Cookie",),
    path_values={"provider": PROVIDERS},
)
def sign_in_with_provider(provider: str):
    if provider not in PROVIDERS:
        raise NotFound("Unknown sign-in provider")
    session = identity.sign_in().sign_in_with(provider, parse_body(app, IdTokenRequest).id_token)
    account = workspaces.service().account(session.user.id)
    cookie = session_cookie(session.token, session.max_age, secure=get_settings().cookie_secure)
    return json_response(SignInResponse(user=account), cookies=[cookie])


def lambda_handler(event, context):
    return app.resolve(event, context)
