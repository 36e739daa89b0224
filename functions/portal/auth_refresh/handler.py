"""POST /api/auth/refresh: a valid, unexpired portal JWT of a live session → a fresh one."""

from core.http import json_response, portal_api, portal_caller
from core.identity import providers as identity
from core.identity.models import TokenResponse
from core.platform.contract import contract

app = portal_api()


@app.post("/api/auth/refresh")
@contract("A fresh portal JWT for the same session", response=TokenResponse)
def refresh_portal_token():
    return json_response(TokenResponse(token=identity.sign_in().refresh(portal_caller(app))))


def lambda_handler(event, context):
    return app.resolve(event, context)
