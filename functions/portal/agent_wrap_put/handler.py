"""PUT /api/workspaces/{workspaceId}/agents/{agentId}/wrap: publish the agent's wrap document; 200 {wrap}.

The body is the document: a JSON object, at most 64 KiB. The read plane
serves it on its next read of the agent (``GET /v1/agent/{agentId}/wrap``). Owner or admin. Honours
``Idempotency-Key``.
"""

from core.agents import providers as agents
from core.http import as_writer, author, json_document, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.put("/api/workspaces/<workspaceId>/agents/<agentId>/wrap")
@contract(
    "Publish the agent's wrap document",
    body="agents.writer_models.WrapDocument",
    response="agents.writer_models.WrapEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def publish_wrap(workspaceId: str, agentId: str):
    writer = author(app)
    document = json_document(app, first=as_writer(app, workspaceId))
    return json_response(agents.writer().publish_wrap(writer, workspaceId, agentId, document))


def lambda_handler(event, context):
    return app.resolve(event, context)
