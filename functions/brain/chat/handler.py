"""POST /v1/agent/{agentId}/chat: the agent's reply as NDJSON, streamed (ResponseTransferMode: RESPONSE_STREAM).

Refusals (400, 404, 429, 402) are plain JSON errors before anything is streamed or
billed; after ``start``, a failure is a final ``error`` event. The workspace's owner
pays for the turn, once, if any reply text was streamed.
"""

from core.chat import providers as chat_providers
from core.chat.models import ChatRequest
from core.http import brain_api, parse_body, stream_response, workspace_caller
from core.platform.contract import contract
from core.platform.errors import InsufficientCredits, NotFound, RateLimited, ValidationFailed

app = brain_api()
NDJSON = "application/x-ndjson"


@app.post("/v1/agent/<agentId>/chat")
@contract(
    "Chat with an agent (a streamed, billed turn)",
    body=ChatRequest,
    response="chat.models.ChatEvent",
    media_type=NDJSON,
    errors=(ValidationFailed, NotFound, RateLimited, InsufficientCredits),
)
def chat(agentId: str):
    request = parse_body(app, ChatRequest)
    seconds_left = app.lambda_context.get_remaining_time_in_millis() / 1000
    caller = workspace_caller(app)
    turn = chat_providers.service().start(
        caller.workspace_id, agentId, request, seconds_left=seconds_left, key_id=caller.api_key_id
    )
    return stream_response(200, {"Cache-Control": "no-store"}, turn, content_type=NDJSON)


def lambda_handler(event, context):
    return app.resolve(event, context)
