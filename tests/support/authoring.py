"""The writer's endpoints driven in process (the handlers template.yaml routes, on moto), for the authoring tests.

``Studio`` wraps ``tests.support.portal.Portal``: a signed-in owner with a workspace, and one method per route
of authoring.md answering the handler's ``HttpResult``; ``put_object`` stores an object as a finished upload
would (in process there is no HTTP for a presigned POST: the runner's tests upload for real).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.settings import get_settings
from tests.support.lambdas import HttpResult
from tests.support.portal import Portal, Session

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60 + b"\xff\xd9"


@dataclass
class Studio:
    portal: Portal
    who: Session
    workspace_id: str

    @classmethod
    def open(cls, portal: Portal, email: str = "owner@example.com", *, plan: str = "pro", name: str = "Acme") -> Studio:
        who = portal.sign_in(email, plan=plan)
        return cls(portal, who, portal.create_workspace(who, name)["id"])

    def as_(self, who: Session) -> Studio:
        """The same workspace, called by another user."""
        return Studio(self.portal, who, self.workspace_id)

    def call(
        self,
        function: str,
        *,
        body: Any = None,
        query: dict[str, str] | None = None,
        key: str | None = None,
        **ids: str,
    ) -> HttpResult:
        params = {"workspaceId": self.workspace_id} | {_camel(k): v for k, v in ids.items()}
        headers = {"Idempotency-Key": key} if key else None
        return self.portal.call(function, token=self.who.token, params=params, body=body, headers=headers,
                                query=query)  # fmt: skip

    def ok(self, function: str, status: int = 200, **request: Any) -> Any:
        result = self.call(function, **request)
        assert result.status == status, result.body
        return result.json()

    # --- objects

    def put_object(self, path: str, body: bytes = JPEG, content_type: str = "image/jpeg") -> None:
        """``path`` (workspace-relative) stored as an upload would store it."""
        key = f"workspaces/{self.workspace_id}/{path}"
        self.portal.aws.s3.put_object(
            Bucket=get_settings().content_bucket, Key=key, Body=body, ContentType=content_type
        )

    def media(self, agent_id: str, *names: str) -> None:
        for name in names:
            self.put_object(f"projects/{agent_id}/{name}")

    # --- the resources most tests start from

    def agent(self, name: str = "Helper", **fields: Any) -> dict[str, Any]:
        return self.ok("PortalAgentCreateFunction", 201, body={"name": name} | fields)["agent"]

    def post(self, agent_id: str, **fields: Any) -> dict[str, Any]:
        body = {"key": "media/a.jpg", "kind": "image"} | fields
        return self.ok("PortalPostCreateFunction", 201, body=body, agent_id=agent_id)["post"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
