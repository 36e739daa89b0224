"""GET /api/user/account: the authenticated user."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller
from core.models.management import Account

app = portal_api()


@app.get("/api/user/account")
@contract("The signed-in user", response=Account, errors=(NotFound,))
def get_account():
    return json_response(deps.workspaces().account(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
