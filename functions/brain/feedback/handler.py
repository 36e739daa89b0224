"""POST /v1/agent/{agentId}/turns/{turnId}/feedback: a visitor's rating of a reply (up, down, or null to withdraw it).

The key's workspace must hold the agent, and the turn must have been answered by it to this ``client`` within the
last 7 days: every other case is the one 404 "Turn not found". Limited per visitor as the chat (429); never billed.
"""

from core.http import brain_api, json_response, parse_body, workspace_caller
from core.insights import providers as insights
from core.insights.feedback_models import FeedbackRequest
from core.platform.contract import contract
from core.platform.errors import Conflict, NotFound, RateLimited, ValidationFailed

app = brain_api()


@app.post("/v1/agent/<agentId>/turns/<turnId>/feedback")
@contract(
    "Rate a reply of the agent (a visitor's up or down; null withdraws it)",
    body=FeedbackRequest,
    response="platform.envelopes.Empty",
    errors=(ValidationFailed, NotFound, RateLimited, Conflict),
)
def feedback(agentId: str, turnId: str):
    request = parse_body(app, FeedbackRequest)
    insights.feedback().rate(workspace_caller(app).workspace_id, agentId, turnId, request)
    return json_response({})


def lambda_handler(event, context):
    return app.resolve(event, context)
