"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}: {deleted: true}; owner or admin.

Gone at once for every API (404 on the read plane); its posts, items, objects under ``projects/<agentId>/`` and
stored conversations are purged in the background (the purge queue). A retry queues the purge again. Honours
``Idempotency-Key``.
"""

from core.agents import providers as agents
from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>")
@contract(
    "Delete an agent, permanently",
    response="platform.envelopes.Deleted",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_agent(workspaceId: str, agentId: str):
    writer = author(app)
    return json_response(agents.writer().delete(writer, workspaceId, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
