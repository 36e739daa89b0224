"""POST /api/workspaces/{workspaceId}/agents/{agentId}/answers: 201 {answer}.

The body: ``{question, answer}`` (1-500 / 1-4,000 characters), or ``{fromTurn, answer}``: the question is that turn's
prompt (a turn of this agent within its 8 days, in a workspace that stores conversations; 404 otherwise). An agent
holds at most 1,000 answers (409 past them). The answer is part of the agent's knowledge once the knowledge worker
has read it. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.answers import providers as answers
from core.answers.writer_models import AnswerCreate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/answers")
@contract(
    "Answer a question",
    body=AnswerCreate,
    response="answers.writer_models.AnswerEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_answer(workspaceId: str, agentId: str):
    writer = author(app, status=201)
    request = parse_body(app, AnswerCreate, first=as_writer(app, workspaceId))
    return json_response(answers.writer().create(writer, workspaceId, agentId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
