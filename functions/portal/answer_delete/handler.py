"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}/answers/{answerId}: {}; owner or admin.

The agent's next index leaves it out. Honours ``Idempotency-Key``.
"""

from core.answers import providers as answers
from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>/answers/<answerId>")
@contract(
    "Delete an answer",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_answer(workspaceId: str, agentId: str, answerId: str):
    writer = author(app)
    return json_response(answers.writer().delete(writer, workspaceId, agentId, answerId))


def lambda_handler(event, context):
    return app.resolve(event, context)
