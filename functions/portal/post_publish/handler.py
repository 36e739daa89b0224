"""POST /api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}/publish: 200 {post}; idempotent.

Every media key must be an object of the agent's folder (400 naming the first that is not).
A post already published is answered as it is. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.posts import providers as posts

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/posts/<postId>/publish")
@contract(
    "Publish a post",
    response="posts.writer_models.PostEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def publish_post(workspaceId: str, agentId: str, postId: str):
    writer = author(app)
    return json_response(posts.writer().set_published(writer, workspaceId, agentId, postId, published=True))


def lambda_handler(event, context):
    return app.resolve(event, context)
