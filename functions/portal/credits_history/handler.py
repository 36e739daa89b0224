"""GET /api/credits/history?limit=&offset=&refType=: the caller's ledger entries, newest first.

``limit`` 1-200 (default 50), ``offset`` ≥ 0, ``refType`` one of the ledger's types;
``total`` counts the entries that match the filter. Anything else in range is a 400.
"""

from core import deps
from core.contract import contract
from core.errors import ValidationFailed
from core.http import json_response, parse_query, portal_api, portal_caller
from core.models.management import CreditHistory, CreditHistoryQuery

app = portal_api()


@app.get("/api/credits/history")
@contract(
    "The caller's ledger entries, newest first",
    response=CreditHistory,
    query=CreditHistoryQuery,
    errors=(ValidationFailed,),
)
def get_history():
    query = parse_query(app, CreditHistoryQuery)
    return json_response(deps.credits().history(portal_caller(app).user_id, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
