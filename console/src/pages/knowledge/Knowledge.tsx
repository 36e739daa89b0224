// An agent's knowledge: its documents with their index status (read again every few seconds while one is being
// read), uploads by drag and drop or a file picker with progress, replace, deactivate, delete; and a search box that
// shows what a chat turn would retrieve (authoring.md, "Items", "Knowledge", "Trying an agent").
import { useEffect, useRef, useState } from "preact/hooks";
import { api, everyListed, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice, Progress } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import { useAgent } from "../agents/agent";
import {
  ACCEPT,
  contentTypeOf,
  deleteObject,
  documentsFolder,
  freePath,
  itemName,
  kindOf,
  send,
  sign,
  type Item,
} from "./upload";

/** How often the list is read again while a document is being read (one GET of the items each time). */
export const POLL_MS = 3000;

type Upload = {
  id: number;
  name: string;
  /** The item replaced, when this upload is a new file for it. */
  replaces?: string;
  phase: "signing" | "sending" | "adding" | "done" | "failed";
  sent: number;
  total: number;
  error?: unknown;
};

export function Knowledge() {
  const { workspace, canWrite } = useWorkspace();
  const { agent } = useAgent();
  const params = { path: { workspaceId: workspace.id, agentId: agent.id } };
  const items = useLoad(
    () => everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/items", { params: { ...params, query: { cursor } } }), (r) => r.items),
    [workspace.id, agent.id],
  );
  // An item just created is shown at once as the API answered it (pending), until the list read after it has it.
  const [created, setCreated] = useState<Item[]>([]);
  const loadedIds = new Set((items.data ?? []).map((i) => i.id));
  const list = [...(items.data ?? []), ...created.filter((i) => !loadedIds.has(i.id))];
  const reading = list.filter((i) => i.index.status === "pending").length;

  useEffect(() => {
    if (items.data) setCreated((all) => all.filter((i) => !items.data!.some((loaded) => loaded.id === i.id)));
  }, [items.data]);

  // Live status: while any document is pending, read the list again after POLL_MS; once none is, stop.
  useEffect(() => {
    if (!reading) return;
    const timer = setTimeout(() => void items.reload(), POLL_MS);
    return () => clearTimeout(timer);
  }, [items.data, items.error, reading]);

  const [uploads, setUploads] = useState<Upload[]>([]);
  const nextId = useRef(1);
  const claimed = useRef(new Set<string>()); // paths of this page's uploads: two files of one name get two paths
  const update = (id: number, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.id === id ? { ...u, ...change } : u)));

  /** Sign, send and name one file: a new item, or (`replacing`) the item's new object, its old one deleted. */
  async function upload(file: File, replacing?: Item) {
    const id = nextId.current++;
    setUploads((all) => [
      ...all.filter((u) => u.phase !== "done"),
      { id, name: file.name, replaces: replacing?.name, phase: "signing", sent: 0, total: file.size },
    ]);
    let stored: string | null = null; // the object sent, until an item names it
    try {
      const contentType = contentTypeOf(file);
      // Never another item's file (nor, for a replacement, the file it replaces: a new object, then the new key).
      const taken = new Set([...list.map((i) => i.r2Key), ...claimed.current]);
      const path = freePath(documentsFolder(agent.id), file.name, taken);
      claimed.current.add(path);
      const ticket = await sign(workspace.id, path, contentType, file.size);
      update(id, { phase: "sending" });
      await send(ticket, file, (sent, total) => update(id, { sent, total }));
      stored = ticket.path;
      update(id, { phase: "adding" });
      if (replacing) {
        await ok(() =>
          api.PATCH("/api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}", {
            params: { path: { ...params.path, itemId: replacing.id } },
            body: { r2Key: ticket.path, kind: kindOf(contentType) },
          }),
        );
        stored = null;
        await dropFile(replacing.r2Key, replacing.id);
      } else {
        const made = await ok(() =>
          api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/items", {
            params,
            body: { name: itemName(file.name), kind: kindOf(contentType), r2Key: ticket.path },
          }),
        );
        stored = null;
        setCreated((all) => [...all, made.item]);
      }
      update(id, { phase: "done" });
    } catch (error) {
      update(id, { phase: "failed", error });
      // Sent but named by no item (the item's write was refused): the file is removed rather than left to count
      // against the storage; the failure shown is the write's, whatever this cleanup meets.
      if (stored) await deleteObject(workspace.id, stored).catch(() => undefined);
    } finally {
      await items.reload();
    }
  }

  /** Delete the file of a document deleted or replaced: only the console's own folder, and only when no other item
   * names it (a post's media and a bundle's files elsewhere are never touched). */
  async function dropFile(r2Key: string, exceptItem: string) {
    if (!r2Key.startsWith(documentsFolder(agent.id))) return;
    const fresh = await everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/items", { params: { ...params, query: { cursor } } }), (r) => r.items);
    if (fresh.some((i) => i.id !== exceptItem && i.r2Key === r2Key)) return;
    await deleteObject(workspace.id, r2Key);
  }

  return (
    <section aria-labelledby="knowledge-title">
      <h1 id="knowledge-title">Knowledge</h1>
      <p class="muted">
        {agent.name} answers from its active documents: PDF, Word, Excel, PowerPoint, OpenDocument, CSV, text, Markdown and
        JSON. Each is read (indexed) after it is added; images, video and audio are kept but not read.
      </p>
      {canWrite && <Uploader onFiles={(files) => files.forEach((f) => void upload(f))} uploads={uploads} />}

      <h2>Documents</h2>
      {items.loading && !items.data && <Loading label="Loading the documents…" />}
      <ErrorBox error={items.error} onRetry={items.reload} />
      {items.data && (
        <p class="muted" role="status" aria-live="polite" data-testid="index-summary">
          {summary(list, reading)}
        </p>
      )}
      {items.data && list.length === 0 && (
        <Empty title="No documents yet.">
          <p>
            {canWrite
              ? "Drop a file above or choose one: the agent reads it within a minute and answers from it."
              : "The workspace's owner or an admin adds them."}
          </p>
        </Empty>
      )}
      <ul class="documents">
        {list.map((item) => (
          <Document
            key={item.id}
            item={item}
            canWrite={canWrite}
            onReplace={(file) => upload(file, item)}
            onToggle={async () => {
              await ok(() =>
                api.PATCH("/api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}", {
                  params: { path: { ...params.path, itemId: item.id } },
                  body: { active: !item.active },
                }),
              );
              await items.reload();
            }}
            onDelete={async () => {
              await ok(() =>
                api.DELETE("/api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}", {
                  params: { path: { ...params.path, itemId: item.id } },
                }),
              );
              try {
                await dropFile(item.r2Key, item.id);
              } finally {
                await items.reload();
              }
            }}
          />
        ))}
      </ul>

      <Search workspaceId={workspace.id} agentId={agent.id} />
    </section>
  );
}

function summary(list: Item[], reading: number): string {
  if (list.length === 0) return "";
  const count = (status: Item["index"]["status"]) => list.filter((i) => i.index.status === status).length;
  const parts = [
    `${list.length} ${list.length === 1 ? "document" : "documents"}`,
    count("indexed") && `${count("indexed")} indexed`,
    reading && `${reading} being read (this list refreshes by itself)`,
    count("failed") && `${count("failed")} failed`,
    count("skipped") && `${count("skipped")} not read`,
  ];
  return parts.filter(Boolean).join(" · ");
}

function Uploader({ onFiles, uploads }: { onFiles: (files: File[]) => void; uploads: Upload[] }) {
  const [over, setOver] = useState(false);
  return (
    <>
      <h2>Add documents</h2>
      <div
        class={over ? "dropzone over" : "dropzone"}
        data-testid="dropzone"
        onDragOver={(event) => {
          event.preventDefault();
          if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          const files = Array.from(event.dataTransfer?.files ?? []);
          if (files.length) onFiles(files);
        }}
      >
        <p>Drop files here, or</p>
        <label class="picker">
          Choose files
          <input
            type="file"
            multiple
            accept={ACCEPT}
            onChange={(event) => {
              const input = event.target as HTMLInputElement;
              const files = Array.from(input.files ?? []);
              input.value = ""; // the same file chosen again is a new upload
              if (files.length) onFiles(files);
            }}
          />
        </label>
      </div>
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.id} data-testid="upload" aria-busy={u.phase !== "done" && u.phase !== "failed"}>
              <UploadRow upload={u} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function UploadRow({ upload: u }: { upload: Upload }) {
  const what = u.replaces ? `${u.name} (replacing ${u.replaces})` : u.name;
  switch (u.phase) {
    case "signing":
      return <Loading label={`${what}: preparing the upload…`} />;
    case "sending":
      return <Progress value={u.sent} max={u.total || 1} label={`Uploading ${what}`} />;
    case "adding":
      return <Loading label={`${what}: uploaded, adding it to the agent…`} />;
    case "done":
      return <Notice>{`${what}: added. The agent reads it now; its status is below.`}</Notice>;
    case "failed":
      return (
        <>
          <p>
            <strong>{what}</strong> was not added.
          </p>
          <ErrorBox error={u.error} />
        </>
      );
  }
}

const STATUS: Record<Item["index"]["status"], { label: string; badge: string }> = {
  pending: { label: "Being read", badge: "badge" },
  indexed: { label: "Indexed", badge: "badge ok" },
  skipped: { label: "Not read", badge: "badge" },
  failed: { label: "Failed", badge: "badge bad" },
};

/** The index status in words: what the agent does with the document and, for a failure, why and what to do. */
function statusWords(item: Item): string {
  const index = item.index;
  switch (index.status) {
    case "pending":
      return "Waiting to be read: this usually takes under a minute.";
    case "indexed":
      return `${index.passages} ${index.passages === 1 ? "passage" : "passages"} the agent can answer from.`;
    case "skipped":
      if (!item.active) return "Inactive: the agent does not read it.";
      if (item.kind !== "document") return "A media file: kept and shown, but the agent does not read it.";
      return index.error ?? "Nothing readable in it (no text): upload a version with text.";
    case "failed":
      return index.error ?? "It could not be read: upload it again.";
  }
}

function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function Document({ item, canWrite, onReplace, onToggle, onDelete }: {
  item: Item;
  canWrite: boolean;
  onReplace: (file: File) => Promise<void>;
  onToggle: () => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const picker = useRef<HTMLInputElement>(null);
  const status = STATUS[item.index.status];
  const fileName = item.r2Key.slice(item.r2Key.lastIndexOf("/") + 1);
  const titleId = `doc-${item.id}`;
  return (
    <li class="document" data-item={item.id} aria-labelledby={titleId}>
      <h3 id={titleId}>{item.name}</h3>
      <p class="row">
        <span class={status.badge} data-status={item.index.status}>
          {status.label}
        </span>
        {!item.active && <span class="badge">Inactive</span>}
        <span class="muted">
          {fileName} · {item.mimeType || item.kind} · {size(item.size)}
        </span>
      </p>
      <p class={item.index.status === "failed" ? "reason bad" : "reason"} data-testid="index-words">
        {statusWords(item)}
      </p>
      {canWrite && (
        <div class="row">
          <button type="button" disabled={busy} aria-busy={busy} onClick={() => picker.current?.click()}>
            Replace file
          </button>
          <input
            ref={picker}
            type="file"
            hidden
            accept={ACCEPT}
            aria-label={`New file for ${item.name}`}
            onChange={async (event) => {
              const input = event.target as HTMLInputElement;
              const file = input.files?.[0];
              input.value = "";
              if (!file) return;
              setBusy(true);
              try {
                await onReplace(file);
              } finally {
                setBusy(false);
              }
            }}
          />
          <button
            type="button"
            disabled={busy}
            aria-busy={busy}
            onClick={async () => {
              setBusy(true);
              setError(null);
              try {
                await onToggle();
              } catch (e) {
                setError(e);
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? "Saving…" : item.active ? "Deactivate" : "Activate"}
          </button>
          <ConfirmButton
            label="Delete"
            confirm={`Delete ${item.name} and its file?`}
            disabled={busy}
            onConfirm={async () => {
              setError(null);
              try {
                await onDelete();
              } catch (e) {
                setError(e);
              }
            }}
          />
        </div>
      )}
      <ErrorBox error={error} />
    </li>
  );
}

type Passage = Schemas["RetrievedPassage"];

/** Where a passage comes from, in words: a document, a post, an owner's answer or a site section. */
function sourceWords(source: Passage["source"]): string {
  if (source.answerId) return `Your answer to “${source.name}”`;
  if (source.postId) return `Post: ${source.name}`;
  if (source.itemId) return `Document: ${source.name}`;
  return `Site: ${source.name}`;
}

/** What a chat turn would retrieve for a message: the passages, best first, with their scores (unbilled). */
function Search({ workspaceId, agentId }: { workspaceId: string; agentId: string }) {
  const { workspace } = useWorkspace();
  const [query, setQuery] = useState("");
  const { busy, error, run } = useAction();
  const [found, setFound] = useState<{ query: string; passages: Passage[] } | null>(null);
  return (
    <>
      <h2>Try a search</h2>
      <p class="muted">What a visitor's message would find in the agent's knowledge, best first, as a chat turn ranks it.</p>
      <form
        class="inline"
        role="search"
        aria-label="The agent's knowledge"
        onSubmit={async (event) => {
          event.preventDefault();
          await run(async () => {
            const answer = await ok(() =>
              api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/knowledge/search", {
                params: { path: { workspaceId, agentId } },
                body: { query },
              }),
            );
            setFound({ query, passages: answer.passages });
          });
        }}
      >
        <label>
          A visitor's message
          <input type="search" required maxLength={4000} value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? "Searching…" : "Search"}
        </button>
      </form>
      <ErrorBox error={error} />
      <div aria-live="polite">
        {found && found.passages.length === 0 && (
          <Empty title={`Nothing in the agent's knowledge matches “${found.query}”.`}>
            <p>
              Add a document that answers it, or <a href={href(workspace.id, `/agents/${encodeURIComponent(agentId)}/answers`)}>write the answer</a>.
            </p>
          </Empty>
        )}
        {found && found.passages.length > 0 && (
          <ol class="passages" aria-label={`Passages for “${found.query}”`}>
            {found.passages.map((p) => (
              <li data-testid="passage">
                <blockquote>{p.text}</blockquote>
                <p class="muted">
                  <span data-testid="passage-source">{sourceWords(p.source)}</span>
                  {p.where && <> · {p.where}</>} · score <span data-testid="passage-score">{p.score.toFixed(2)}</span>
                </p>
              </li>
            ))}
          </ol>
        )}
      </div>
    </>
  );
}
