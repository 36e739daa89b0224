"""GET /v1/agent/{agentId}/feed: published posts, newest first, at most 120.

Optional query: ``channel`` (posts whose channels contain it), ``category`` (equality).
"""

from core import deps
from core.contract import contract
from core.errors import NotFound, ValidationFailed
from core.http import brain_api, json_response, query_param, workspace_caller
from core.models.read_plane import FeedPost

app = brain_api()


@app.get("/v1/agent/<agentId>/feed")
@contract(
    "An agent's published posts, newest first",
    response=list[FeedPost],
    query="envelopes.FeedQuery",
    errors=(ValidationFailed, NotFound),
)
def get_feed(agentId: str):
    posts = deps.read_plane().feed(
        workspace_caller(app).workspace_id,
        agentId,
        channel=query_param(app, "channel"),
        category=query_param(app, "category"),
    )
    return json_response(posts)


def lambda_handler(event, context):
    return app.resolve(event, context)
