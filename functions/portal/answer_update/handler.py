"""PATCH /api/workspaces/{workspaceId}/agents/{agentId}/answers/{answerId}: any of ``question``, ``answer``;
200 {answer}.

Owner or admin. Honours ``Idempotency-Key``.
"""

from core.answers import providers as answers
from core.answers.writer_models import AnswerUpdate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/agents/<agentId>/answers/<answerId>")
@contract(
    "Change an answer",
    body=AnswerUpdate,
    response="answers.writer_models.AnswerEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_answer(workspaceId: str, agentId: str, answerId: str):
    writer = author(app)
    request = parse_body(app, AnswerUpdate, first=as_writer(app, workspaceId))
    return json_response(answers.writer().update(writer, workspaceId, agentId, answerId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
