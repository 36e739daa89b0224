// The workspace's settings (name, storing conversations and their retention, the low-credits threshold; PATCH
// /api/workspaces/{id}: only the fields changed are sent) and, for its owner alone,
// deleting it (two steps: a button, then a confirmation in place).
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { ErrorBox, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useWorkspace } from "../../ui/workspace";

type Update = Schemas["WorkspaceUpdate"];

export function Settings() {
  const { workspace, role, canWrite, reload } = useWorkspace();
  const location = useLocation();
  const [name, setName] = useState(workspace.name);
  const [store, setStore] = useState(workspace.storeConversations);
  const [keep, setKeep] = useState(workspace.conversationRetentionDays !== null);
  const [days, setDays] = useState(String(workspace.conversationRetentionDays ?? 90));
  const [warn, setWarn] = useState(workspace.lowCreditsThreshold !== null);
  const [threshold, setThreshold] = useState(String(workspace.lowCreditsThreshold ?? 100));
  const { busy: saving, error, run } = useAction();
  const [saved, setSaved] = useState("");
  const removal = useAction(); // the owner's delete: its own error, under its own button

  // Only what differs from the stored settings goes in the PATCH (a null there would mean "not sent" for most
  // fields, but "kept forever" for the retention and "never" for the threshold, so those are sent only when changed).
  const update: Update = {};
  if (name.trim() !== workspace.name) update.name = name.trim();
  if (store !== workspace.storeConversations) update.storeConversations = store;
  const retention = keep ? Number(days) : null;
  const retentionChanged = retention !== workspace.conversationRetentionDays;
  const low = warn ? Number(threshold) : null;
  const lowChanged = low !== workspace.lowCreditsThreshold;
  const changed = Object.keys(update).length > 0 || retentionChanged || lowChanged;

  async function save(event: Event) {
    event.preventDefault();
    setSaved("");
    await run(async () => {
      const body: Update = {
        ...update,
        ...(retentionChanged ? { conversationRetentionDays: retention } : {}),
        ...(lowChanged ? { lowCreditsThreshold: low } : {}),
      };
      await ok(() => api.PATCH("/api/workspaces/{workspaceId}", { params: { path: { workspaceId: workspace.id } }, body }));
      setSaved("Settings saved.");
      await reload();
    });
  }

  return (
    <section>
      <h1>Workspace settings</h1>
      <dl class="facts">
        <dt>Address name (slug)</dt>
        <dd><code>{workspace.slug}</code> <span class="muted">(never changes)</span></dd>
        <dt>Your role</dt>
        <dd>{role}</dd>
        <dt>Created</dt>
        <dd><time dateTime={workspace.createdAt}>{new Date(workspace.createdAt).toLocaleDateString()}</time></dd>
      </dl>
      {!canWrite && <p class="muted">Your role reads these settings; an owner or admin changes them.</p>}
      <form onSubmit={save} aria-busy={saving}>
        <fieldset disabled={!canWrite}>
          <legend class="sr-only">Settings</legend>
          <label>
            Workspace name
            <input required maxLength={80} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <label class="check">
            <input type="checkbox" checked={store} onChange={(e) => setStore((e.target as HTMLInputElement).checked)} />
            Store visitors' conversations
          </label>
          <p class="hint indent">
            Off by default. While off, no visitor's turn is kept: Conversations and exports stay empty. Turn it on to read
            what visitors asked.
          </p>
          <label class="check">
            <input type="checkbox" checked={keep}
              onChange={(e) => setKeep((e.target as HTMLInputElement).checked)} />
            Remove stored conversations after a number of days
          </label>
          {keep && (
            <label class="indent">
              Days kept (1 to 3,650)
              <input type="number" min={1} max={3650} step={1} required value={days}
                onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
            </label>
          )}
          {!keep && <p class="hint indent">Stored conversations are kept until you erase them.</p>}
          <label class="check">
            <input type="checkbox" checked={warn} onChange={(e) => setWarn((e.target as HTMLInputElement).checked)} />
            Count the workspace as low on credits under a balance
          </label>
          {warn && (
            <label class="indent">
              Low-credits threshold (credits)
              <input type="number" min={0} max={1000000000} step={1} required value={threshold}
                onInput={(e) => setThreshold((e.target as HTMLInputElement).value)} />
            </label>
          )}
          <p class="hint indent">
            {warn
              ? "Below this balance the owner's credits count as low (the workspace's events will say so)."
              : "Never counted as low."}
          </p>
        </fieldset>
        {canWrite && (
          <div class="row">
            <button type="submit" class="primary" disabled={saving || !changed} aria-busy={saving}>
              {saving ? "Saving…" : "Save settings"}
            </button>
          </div>
        )}
      </form>
      <ErrorBox error={error} />
      {saved && <Notice>{saved}</Notice>}
      {role === "owner" && (
        <section class="danger-zone" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete this workspace</h2>
          <p>
            Its agents, documents, posts, keys and stored conversations are removed; sites using its keys stop answering.
            This cannot be undone.
          </p>
          <ConfirmButton
            label="Delete workspace"
            confirm={`Delete ${workspace.name} and everything in it?`}
            onConfirm={() =>
              removal.run(async () => {
                await ok(() => api.DELETE("/api/workspaces/{workspaceId}", { params: { path: { workspaceId: workspace.id } } }));
                location.route("/");
              })
            }
          />
          <ErrorBox error={removal.error} />
        </section>
      )}
    </section>
  );
}
