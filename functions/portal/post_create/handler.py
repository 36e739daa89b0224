"""POST /api/workspaces/{workspaceId}/agents/{agentId}/posts: 201 {post}.

The body: a FeedPost's fields but ``id`` and ``isVideo``, and ``publish``.

A draft unless ``publish: true``. Media keys (``key``, ``poster``, ``playable``, each page's ``key``) are relative
to the agent's folder and must be objects there when the post is published (400 naming the key). ``createdAt``
may be given (an import), never in the future; the feed orders by it. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.posts import providers as posts
from core.posts.writer_models import PostCreate

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/posts")
@contract(
    "Create a post",
    body=PostCreate,
    response="posts.writer_models.PostEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_post(workspaceId: str, agentId: str):
    writer = author(app, status=201)
    request = parse_body(app, PostCreate, first=as_writer(app, workspaceId))
    return json_response(posts.writer().create(writer, workspaceId, agentId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
