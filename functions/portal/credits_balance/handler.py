"""GET /api/credits/balance: the caller's credits (available, held, total) and their value in US cents."""

from core.credits import providers as credits
from core.credits.models import CreditBalance
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract

app = portal_api()


@app.get("/api/credits/balance")
@contract("The caller's credits", response=CreditBalance)
def get_balance():
    return json_response(credits.reader().balance(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
