"""GET /api/user/account: the authenticated user."""

from core import deps
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/user/account")
def get_account():
    return json_response(deps.workspaces().account(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
