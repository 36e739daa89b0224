"""A workspace's settings (authoring.md, "Workspace settings"): name, listing, stored conversations and their
retention, the low-credits threshold, its wrap config, and its default brand and workflow (each must be this
workspace's). The slug never changes."""

from __future__ import annotations

from collections.abc import Callable

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.platform.ids import now_iso
from core.platform.write_fields import changes
from core.workspaces.access import AuthoringAccess
from core.workspaces.models import WorkspaceEnvelope
from core.workspaces.ports import StoredSettings
from core.workspaces.records import WorkspaceRecord
from core.workspaces.workspace import WorkspaceService
from core.workspaces.writer_models import WorkspaceUpdate


class WorkspaceSettingsService:
    def __init__(
        self, access: AuthoringAccess, workspaces: WorkspaceService, settings: StoredSettings,
        writes: Writes, *, retention_changed: Callable[[str], None] = lambda workspace_id: None,
    ):  # fmt: skip
        self._retention_changed = retention_changed  # queues the re-stamping of the stored turns (core.chat.restamp)
        self._access = access
        self._workspaces = workspaces
        self._settings = settings
        self._writes = writes

    def update(self, author: Author, workspace_id: str, request: WorkspaceUpdate) -> WorkspaceEnvelope:
        # The caller's user is read with the access check: the answer's plan is the owner's (one more read for an
        # admin, whose user is not the owner's).
        reads = iter([self._access.writer(author.user_id, workspace_id, with_user=True)])
        wanted = changes(request)

        def work(write: Write) -> WorkspaceEnvelope:
            plan = ""

            def attempt() -> WorkspaceRecord:
                nonlocal plan
                access = next(reads, None) or self._access.writer(author.user_id, workspace_id, with_user=True)
                old, plan = access.workspace, self._access.plan_name(access)
                new = old.model_copy(update=wanted)
                if new == old:
                    return write.unchanged(f"workspace:{workspace_id}", self._answer(old, plan), old)
                new = new.model_copy(update={"updated_at": now_iso(), "version": old.version + 1})
                before, after = old.attributes(), new.attributes()
                # An attribute cleared (``conversationRetentionDays: null``) is absent from ``after``: None removes it.
                changed = {name: after.get(name) for name in before | after if after.get(name) != before.get(name)}
                changed.pop("version")
                if "conversationRetentionDays" in changed:  # queued first: a pass after a failed write changes nothing
                    self._retention_changed(workspace_id)
                answer = self._answer(new, plan)
                self._settings.update(
                    workspace_id, old.version, changed, also=write.also(f"workspace:{workspace_id}", answer),
                    default_brand_was=old.default_brand_id if "defaultBrandId" in changed else None,
                    workflow_id=new.default_workflow_id if "defaultWorkflowId" in changed else None,
                )  # fmt: skip
                return new

            return self._answer(until_unchanged(attempt), plan)

        return self._writes.run(author, workspace_id, "workspace.update", on=workspace_id, request=request,
                                answer=WorkspaceEnvelope, work=work)  # fmt: skip

    def _answer(self, workspace: WorkspaceRecord, plan: str) -> WorkspaceEnvelope:
        return WorkspaceEnvelope(workspace=self._workspaces.to_workspace(workspace, plan))
