"""GET /api/credits/balance: the caller's credits (available, held, total) and their value in US cents."""

from core import deps
from core.contract import contract
from core.http import json_response, portal_api, portal_caller
from core.models.management import CreditBalance

app = portal_api()


@app.get("/api/credits/balance")
@contract("The caller's credits", response=CreditBalance)
def get_balance():
    return json_response(deps.credits().balance(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
