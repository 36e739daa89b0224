"""POST /api/auth/magic-link {email}: mail a single-use sign-in link.

202 whether or not the address is known, and whether or not the mail to it was throttled (per address): nothing
leaks about an account. A source network over its own limit is told so, 429 with ``Retry-After``.
"""

from core.http import json_response, parse_body, portal_api
from core.identity import providers as identity
from core.identity.models import MagicLinkRequest
from core.platform.contract import contract
from core.platform.errors import RateLimited, ValidationFailed

app = portal_api(authenticated=False)


@app.post("/api/auth/magic-link")
@contract(
    "Mail a sign-in link", body=MagicLinkRequest, response="platform.envelopes.Sent", status=202, auth="none",
    errors=(ValidationFailed, RateLimited),
)  # fmt: skip
def request_magic_link():
    request = parse_body(app, MagicLinkRequest)
    # API Gateway always sets it; read defensively so a hand-built event is not a 500.
    source_ip = ((app.current_event.get("requestContext") or {}).get("identity") or {}).get("sourceIp")
    identity.sign_in().send_magic_link(request.email, source_ip)
    return json_response({"sent": True}, status=202)


def lambda_handler(event, context):
    return app.resolve(event, context)
