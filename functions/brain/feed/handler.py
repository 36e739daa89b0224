"""GET /v1/agent/{agentId}/feed: published posts, newest first, at most 120.

Optional query: ``channel`` (posts whose channels contain it), ``category`` (equality).
"""

from core.agents import providers as agents
from core.http import brain_api, json_response, query_param, workspace_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed
from core.posts.models import FeedPost

app = brain_api()


@app.get("/v1/agent/<agentId>/feed")
@contract(
    "An agent's published posts, newest first",
    response=list[FeedPost],
    query="posts.models.FeedQuery",
    errors=(ValidationFailed, NotFound),
)
def get_feed(agentId: str):
    posts = agents.reader().feed(
        workspace_caller(app).workspace_id,
        agentId,
        channel=query_param(app, "channel"),
        category=query_param(app, "category"),
    )
    return json_response(posts)


def lambda_handler(event, context):
    return app.resolve(event, context)
