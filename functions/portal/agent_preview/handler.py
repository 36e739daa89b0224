"""POST /api/workspaces/{workspaceId}/agents/{agentId}/preview: the agent's reply as NDJSON, streamed
(ResponseTransferMode: RESPONSE_STREAM), with a ``retrieval`` line after ``start``.

The chat's body without ``client`` ({prompt, history?, section?}) and an optional ``behaviour`` that overrides the
saved one for this turn only. Owners, admins and members; anyone else gets 404 (and another workspace's agent).
Refusals (400, 404, 402, 429) are plain JSON errors before anything is streamed or billed; after that a failure is a
final ``error`` line. Billed to the workspace's owner at the model's price, as a turn; never stored as a
conversation; 20 a minute per user.
"""

from core.chat import providers as chat_providers
from core.chat.preview_models import PreviewRequest
from core.http import as_member, parse_body, portal_api, portal_caller, stream_response
from core.platform.contract import contract
from core.platform.errors import InsufficientCredits, NotFound, PlanLimitReached, RateLimited, ValidationFailed

app = portal_api()
NDJSON = "application/x-ndjson"


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/preview")
@contract(
    "Try an agent: a streamed, billed turn with the passages it considered (never stored)",
    body=PreviewRequest,
    response="chat.preview_models.PreviewEvent",
    media_type=NDJSON,
    errors=(ValidationFailed, NotFound, PlanLimitReached, RateLimited, InsufficientCredits),
)
def preview(workspaceId: str, agentId: str):
    request = parse_body(app, PreviewRequest, first=as_member(app, workspaceId))
    seconds_left = app.lambda_context.get_remaining_time_in_millis() / 1000
    turn = chat_providers.preview().start(
        portal_caller(app).user_id, workspaceId, agentId, request, seconds_left=seconds_left
    )
    return stream_response(200, {"Cache-Control": "no-store"}, turn, content_type=NDJSON)


def lambda_handler(event, context):
    return app.resolve(event, context)
