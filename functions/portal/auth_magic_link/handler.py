"""POST /api/auth/magic-link {email}: mail a single-use sign-in link (202 whether or not the address is known)."""

from core import deps
from core.http import json_response, parse_body, portal_api
from core.models.management import MagicLinkRequest

app = portal_api(authenticated=False)


@app.post("/api/auth/magic-link")
def request_magic_link():
    deps.identity().send_magic_link(parse_body(app, MagicLinkRequest).email)
    return json_response({"sent": True}, status=202)


def lambda_handler(event, context):
    return app.resolve(event, context)
