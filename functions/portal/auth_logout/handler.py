"""POST /api/auth/logout: end the session named by the cookie or the bearer JWT; clears the cookie.

Idempotent: without a live session it still answers ``{}``. A bearer token that is
present but invalid is refused (401), like everywhere on the portal.
"""

from core import deps
from core.auth.bearer import bearer_token
from core.contract import contract
from core.cookies import clear_session_cookie, read_cookie
from core.errors import Unauthorized
from core.http import json_response, portal_api
from core.settings import get_settings

app = portal_api(authenticated=False)


@app.post("/api/auth/logout")
@contract(
    "Sign out",
    response="envelopes.Empty",
    auth="session-or-bearer",
    errors=(Unauthorized,),
    response_headers=("Set-Cookie",),
)
def sign_out():
    identity = deps.identity()
    headers = app.current_event.headers
    bearer = bearer_token(headers)
    session_id = (
        identity.authenticate(bearer).session_id if bearer else identity.session_of_cookie(read_cookie(headers))
    )
    if session_id:
        identity.sign_out(session_id)
    return json_response({}, cookies=[clear_session_cookie(secure=get_settings().cookie_secure)])


def lambda_handler(event, context):
    return app.resolve(event, context)
