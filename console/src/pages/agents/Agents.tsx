// The workspace's agents (GET /api/workspaces/{id}/agents: one answer, no pages): open one, create, rename, delete.
// A member reads the list and opens an agent; the create, rename and delete controls are the owner's and admins'.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, everyListed, ok } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import type { Agent } from "./agent";

export function Agents() {
  const { workspace, canWrite } = useWorkspace();
  const location = useLocation();
  const workspaceId = workspace.id;
  const agents = useLoad(
    () => everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/agents", { params: { path: { workspaceId }, query: { cursor } } }), (a) => a.agents),
    [workspaceId],
  );
  const [name, setName] = useState("");
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState("");

  async function create(event: Event) {
    event.preventDefault();
    await run(async () => {
      const { agent } = await ok(() =>
        api.POST("/api/workspaces/{workspaceId}/agents", { params: { path: { workspaceId } }, body: { name: name.trim() } }),
      );
      // Straight to the new agent's behaviour and preview: what a newcomer does next.
      location.route(href(workspaceId, `/agents/${encodeURIComponent(agent.id)}/`));
    });
  }

  return (
    <section>
      <h1>Agents</h1>
      <p class="muted">
        An agent answers visitors from the documents and posts you give it. Open one to set how it answers and to try it.
      </p>
      {agents.loading && !agents.data && <Loading label="Loading agents…" />}
      <ErrorBox error={agents.error} onRetry={agents.reload} />
      {notice && <Notice>{notice}</Notice>}
      {agents.data?.length === 0 && (
        <Empty title="This workspace has no agent yet.">
          <p>
            {canWrite
              ? "Create one below, give it a few documents under Knowledge, then try it in the preview."
              : "An owner or admin of this workspace can create one."}
          </p>
        </Empty>
      )}
      {agents.data && agents.data.length > 0 && (
        <div class="table-wrap">
          <table class="agents">
            <caption class="sr-only">Agents of {workspace.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Documents</th>
                <th scope="col">Posts</th>
                <th scope="col" class="wide-only">Changed</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {agents.data.map((agent) => (
                <AgentRow
                  key={agent.id}
                  agent={agent}
                  canWrite={canWrite}
                  onChanged={async (message) => {
                    setNotice(message);
                    await agents.reload();
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite && (
        <>
          <h2>New agent</h2>
          <form class="inline" onSubmit={create} aria-busy={busy}>
            <label>
              Agent name
              <input required maxLength={80} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" class="primary" disabled={busy || !name.trim()} aria-busy={busy}>
              {busy ? "Creating…" : "Create agent"}
            </button>
          </form>
          <ErrorBox error={error} />
        </>
      )}
    </section>
  );
}

function AgentRow({ agent, canWrite, onChanged }: {
  agent: Agent;
  canWrite: boolean;
  onChanged: (message: string) => Promise<void>;
}) {
  const { workspace } = useWorkspace();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(agent.name);
  // Rename and delete share the row's error; only the rename marks the row busy (the delete button says it works).
  const { busy, error, setError, run } = useAction();
  const path = { workspaceId: workspace.id, agentId: agent.id };

  async function rename(event: Event) {
    event.preventDefault();
    await run(async () => {
      await ok(() => api.PATCH("/api/workspaces/{workspaceId}/agents/{agentId}", { params: { path }, body: { name: name.trim() } }));
      setEditing(false);
      await onChanged(`Renamed to ${name.trim()}.`);
    });
  }

  return (
    <tr data-agent={agent.id}>
      <th scope="row">
        {editing ? (
          <form class="inline rename" onSubmit={rename}>
            <label>
              New name for {agent.name}
              <input required maxLength={80} value={name} autoFocus
                onInput={(e) => setName((e.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" class="primary" disabled={busy || !name.trim()} aria-busy={busy}>
              {busy ? "Saving…" : "Save name"}
            </button>
            <button type="button" onClick={() => { setEditing(false); setName(agent.name); setError(null); }}>
              Cancel
            </button>
          </form>
        ) : (
          <a href={href(workspace.id, `/agents/${encodeURIComponent(agent.id)}/`)}>{agent.name}</a>
        )}
        <div class="muted small">{agent.slug}</div>
        <ErrorBox error={error} />
      </th>
      <td>{agent.itemCount}</td>
      <td>{agent.postCount}</td>
      <td class="wide-only">
        <time dateTime={agent.updatedAt}>{new Date(agent.updatedAt).toLocaleString()}</time>
      </td>
      {canWrite && (
        <td>
          <div class="row">
            {!editing && (
              <button type="button" onClick={() => setEditing(true)} aria-label={`Rename ${agent.name}`}>
                Rename
              </button>
            )}
            <ConfirmButton
              label="Delete"
              confirm={`Delete ${agent.name}, its documents, posts and stored conversations?`}
              onConfirm={async () => {
                setError(null);
                try {
                  await ok(() => api.DELETE("/api/workspaces/{workspaceId}/agents/{agentId}", { params: { path } }));
                  await onChanged(`${agent.name} deleted.`);
                } catch (e) {
                  setError(e);
                }
              }}
            />
          </div>
        </td>
      )}
    </tr>
  );
}
