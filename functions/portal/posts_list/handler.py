"""GET /api/workspaces/{workspaceId}/agents/{agentId}/posts?status=&limit=&cursor=: {posts, nextCursor}.

Newest first (by ``createdAt``, ties by id), drafts and published posts together unless ``status`` (``draft``,
``published``) picks one; ``limit`` 1-200 (default 50); ``nextCursor`` (null on the last page) fetches the next
page. Members only.
"""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed
from core.posts import providers as posts
from core.posts.writer_models import PostQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/posts")
@contract(
    "An agent's posts, newest first",
    query=PostQuery,
    response="posts.writer_models.PostPage",
    errors=(NotFound, ValidationFailed),
)
def list_posts(workspaceId: str, agentId: str):
    query = parse_query(app, PostQuery, first=as_member(app, workspaceId))
    return json_response(posts.writer().list(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
