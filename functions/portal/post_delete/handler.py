"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}: {}; owner or admin.

The post leaves the feed and every filtered view in the same write. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.posts import providers as posts

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>/posts/<postId>")
@contract(
    "Delete a post",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_post(workspaceId: str, agentId: str, postId: str):
    writer = author(app)
    return json_response(posts.writer().delete(writer, workspaceId, agentId, postId))


def lambda_handler(event, context):
    return app.resolve(event, context)
