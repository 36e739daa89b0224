"""GET /api/user/account: the authenticated user."""

from core.http import json_response, portal_api, portal_caller
from core.identity.models import Account
from core.platform.contract import contract
from core.platform.errors import NotFound
from core.workspaces import providers as workspaces

app = portal_api()


@app.get("/api/user/account")
@contract("The signed-in user", response=Account, errors=(NotFound,))
def get_account():
    return json_response(workspaces.service().account(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
