"""PATCH /api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}: any FeedPost field but id, isVideo; 200 {post}.

A published post's changed media keys must be objects of the agent's folder (400); a change of channels, category
or createdAt moves it in the feed and its filtered views in the same write. Owner or admin. Honours
``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.posts import providers as posts
from core.posts.writer_models import PostUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/agents/<agentId>/posts/<postId>")
@contract(
    "Change a post",
    body=PostUpdate,
    response="posts.writer_models.PostEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_post(workspaceId: str, agentId: str, postId: str):
    writer = author(app)
    request = parse_body(app, PostUpdate, first=as_writer(app, workspaceId))
    return json_response(posts.writer().update(writer, workspaceId, agentId, postId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
