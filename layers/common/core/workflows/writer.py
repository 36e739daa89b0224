"""Workflows (authoring.md, "Brands and workflows"): a name and the suggestions the agents running it serve."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.platform import pages, together
from core.platform.envelopes import Empty
from core.platform.ids import new_id, now_iso
from core.platform.write_fields import changes
from core.workflows.ports import StoredWorkflows
from core.workflows.records import WorkflowRecord
from core.workflows.writer_models import (
    Workflow,
    WorkflowCreate,
    WorkflowEnvelope,
    WorkflowList,
    WorkflowQuery,
    WorkflowUpdate,
)
from core.workspaces.access import AuthoringAccess, found


def workflow_view(record: WorkflowRecord) -> Workflow:
    suggestions = json.loads(record.suggestions_json) if record.suggestions_json else None
    return Workflow.from_record(record, suggestions=suggestions)


def suggestions_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class WorkflowService:
    def __init__(self, access: AuthoringAccess, workflows: StoredWorkflows, writes: Writes):
        self._access = access
        self._workflows = workflows
        self._writes = writes

    def list(self, user_id: str, workspace_id: str, query: WorkflowQuery) -> WorkflowList:
        """Oldest first (ids are ULIDs of their creation), one page and one workflow more, read beside the member
        check; a bad cursor is refused after the check (a stranger learns nothing)."""

        def page() -> list[WorkflowRecord]:
            return self._workflows.page(workspace_id, query.limit + 1, pages.after(query.cursor, "WORKFLOW#"))

        access, found = together.run(lambda: self._access.member(user_id, workspace_id), page)
        access.result()
        shown, cursor = pages.cut(found.result(), query.limit, lambda w: f"WORKFLOW#{w.id}")
        return WorkflowList(workflows=[workflow_view(w) for w in shown], next_cursor=cursor)

    def create(self, author: Author, workspace_id: str, request: WorkflowCreate) -> WorkflowEnvelope:
        self._access.writer(author.user_id, workspace_id)
        now = now_iso()
        workflow = WorkflowRecord(id=new_id("wf"), workspace_id=workspace_id, name=request.name,
                                  suggestions_json=suggestions_text(request.suggestions), created_at=now,
                                  updated_at=now)  # fmt: skip

        def work(write: Write) -> WorkflowEnvelope:
            answer = WorkflowEnvelope(workflow=workflow_view(workflow))
            self._workflows.create(workflow, also=write.also(f"workflow:{workflow.id}", answer))
            return answer

        return self._writes.run(author, workspace_id, "workflow.create", on=workspace_id, request=request,
                                answer=WorkflowEnvelope, work=work)  # fmt: skip

    def update(self, author: Author, workspace_id: str, workflow_id: str, request: WorkflowUpdate) -> WorkflowEnvelope:
        read = self._checked_then_read(author, workspace_id, workflow_id)
        wanted = changes(request)
        if "suggestions" in wanted:
            wanted["suggestions_json"] = suggestions_text(wanted.pop("suggestions"))

        def work(write: Write) -> WorkflowEnvelope:
            def attempt() -> WorkflowRecord:
                old = found(read(), "Workflow")
                new = old.model_copy(update=wanted)
                if new == old:
                    answer = WorkflowEnvelope(workflow=workflow_view(old))
                    return write.unchanged(f"workflow:{workflow_id}", answer, old)
                new = new.model_copy(update={"updated_at": now_iso()})
                also = write.also(f"workflow:{workflow_id}", WorkflowEnvelope(workflow=workflow_view(new)))
                return self._workflows.update(old, new, also=also)

            return WorkflowEnvelope(workflow=workflow_view(until_unchanged(attempt)))

        return self._writes.run(author, workspace_id, "workflow.update", on=workflow_id, request=request,
                                answer=WorkflowEnvelope, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, workflow_id: str) -> Empty:
        read = self._checked_then_read(author, workspace_id, workflow_id)

        def work(write: Write) -> Empty:
            workflow = found(read(), "Workflow")
            self._workflows.delete(workflow, also=write.also(f"workflow:{workflow_id}", Empty()))
            return Empty()

        return self._writes.run(author, workspace_id, "workflow.delete", on=workflow_id, request=None,
                                answer=Empty, work=work)  # fmt: skip

    def _checked_then_read(
        self, author: Author, workspace_id: str, workflow_id: str
    ) -> Callable[[], WorkflowRecord | None]:
        """The writer's access check and the workflow, read together (the reader: that read, then fresh ones)."""
        _, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id),
            lambda: self._workflows.get(workspace_id, workflow_id),
        )
        return read
