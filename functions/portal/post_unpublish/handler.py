"""POST /api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}/unpublish: 200 {post}; idempotent.

The post leaves the feed and every filtered view at once.
A post already unpublished is answered as it is. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.posts import providers as posts

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/posts/<postId>/unpublish")
@contract(
    "Unpublish a post",
    response="posts.writer_models.PostEnvelope",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def unpublish_post(workspaceId: str, agentId: str, postId: str):
    writer = author(app)
    return json_response(posts.writer().set_published(writer, workspaceId, agentId, postId, published=False))


def lambda_handler(event, context):
    return app.resolve(event, context)
