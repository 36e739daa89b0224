"""GET /api/credits/history?limit=&offset=&refType=: the caller's ledger entries, newest first.

``limit`` 1-200 (default 50), ``offset`` ≥ 0, ``refType`` one of the ledger's types;
``total`` counts the entries that match the filter. Anything else in range is a 400.
"""

from core.credits import providers as credits
from core.credits.models import CreditHistory, CreditHistoryQuery
from core.http import json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import ValidationFailed

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
    return json_response(credits.reader().history(portal_caller(app).user_id, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
