"""POST /api/auth/api-token: the session cookie → a portal JWT (one hour)."""

from core.http import json_response, portal_api
from core.identity import providers as identity
from core.identity.models import TokenResponse
from core.platform.contract import contract
from core.platform.cookies import read_cookie
from core.platform.errors import Unauthorized

app = portal_api(authenticated=False)


@app.post("/api/auth/api-token")
@contract("A portal JWT for the session cookie", response=TokenResponse, auth="session", errors=(Unauthorized,))
def mint_portal_token():
    token = identity.sign_in().token_for_cookie(read_cookie(app.current_event.headers))
    return json_response(TokenResponse(token=token))


def lambda_handler(event, context):
    return app.resolve(event, context)
