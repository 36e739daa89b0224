"""POST /api/auth/refresh: a valid, unexpired portal JWT of a live session → a fresh one."""

from core import deps
from core.contract import contract
from core.http import json_response, portal_api, portal_caller
from core.models.management import TokenResponse

app = portal_api()


@app.post("/api/auth/refresh")
@contract("A fresh portal JWT for the same session", response=TokenResponse)
def refresh_portal_token():
    return json_response(TokenResponse(token=deps.identity().refresh(portal_caller(app))))


def lambda_handler(event, context):
    return app.resolve(event, context)
