"""POST /api/auth/logout: end the session named by the cookie or the bearer JWT; clears the cookie.

Idempotent: without a live session it still answers ``{}``. A bearer token that is
present but invalid is refused (401), like everywhere on the portal.
"""

from core.http import json_response, portal_api
from core.identity import providers as identity
from core.platform.contract import contract
from core.platform.cookies import clear_session_cookie, read_cookie
from core.platform.errors import Unauthorized
from core.platform.rest.bearer import bearer_token
from core.platform.settings import get_settings

app = portal_api(authenticated=False)


@app.post("/api/auth/logout")
@contract(
    "Sign out",
    response="platform.envelopes.Empty",
    auth="session-or-bearer",
    errors=(Unauthorized,),
    response_headers=("Set-Cookie",),
)
def sign_out():
    headers = app.current_event.headers
    identity.sign_in().sign_out(bearer_token(headers), read_cookie(headers))
    return json_response({}, cookies=[clear_session_cookie(secure=get_settings().cookie_secure)])


def lambda_handler(event, context):
    return app.resolve(event, context)
