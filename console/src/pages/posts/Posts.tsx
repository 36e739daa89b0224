// The agent's posts, newest first: a status filter, one page at a time ("Load more" follows the API's nextCursor),
// publish and unpublish (the feed and what the agent knows follow at once), delete, and a simple post written here.
// A post names an object uploaded under the agent (its `key`), which must exist when it is published: the form
// offers the agent's uploaded files. A member reads the list; the write controls are the owner's and admins'.
import { useEffect, useState } from "preact/hooks";
import { api, everyListed, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { useAgent } from "../agents/agent";

type Post = Schemas["Post"];
type Status = "draft" | "published";

const PAGE = 20;

export function Posts() {
  const { agent } = useAgent();
  const { workspace, canWrite } = useWorkspace();
  const path = { workspaceId: workspace.id, agentId: agent.id };
  const [status, setStatus] = useState<Status | "">("");
  const [posts, setPosts] = useState<Post[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const { busy: loading, error, run } = useAction();
  const [notice, setNotice] = useState("");
  const [generation, setGeneration] = useState(0);

  async function load(after: string | null) {
    await run(async () => {
      const query = { limit: PAGE, ...(status ? { status } : {}), ...(after ? { cursor: after } : {}) };
      const page = await ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/posts", { params: { path, query } }));
      setPosts((shown) => (after && shown ? [...shown, ...page.posts] : page.posts));
      setCursor(page.nextCursor);
    });
  }

  // The first page again whenever the filter changes (or after a new post): never every page at once.
  useEffect(() => {
    setPosts(null);
    setCursor(null);
    load(null);
  }, [status, generation, agent.id]);

  /** A post as the API answered a write: replaced in place, or dropped when the filter no longer shows it. */
  function changed(post: Post, message: string) {
    setNotice(message);
    setPosts((shown) => (shown ?? []).flatMap((p) => (p.id !== post.id ? [p] : status && post.status !== status ? [] : [post])));
  }

  return (
    <section>
      <h1>{agent.name}: posts</h1>
      <p class="muted">
        Published posts are in the agent's feed and in what it knows (title, caption, hashtags); drafts are yours alone.
      </p>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label>
          Show
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as Status | "")}>
            <option value="">All posts</option>
            <option value="published">Published</option>
            <option value="draft">Drafts</option>
          </select>
        </label>
      </form>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} onRetry={() => load(posts?.length ? cursor : null)} />
      {posts === null && loading && <Loading label="Loading posts…" />}
      {posts?.length === 0 && (
        <Empty title={status === "published" ? "No published post." : status === "draft" ? "No draft." : "This agent has no post yet."}>
          <p>
            {canWrite
              ? "Write one below, or publish posts with workspace-client publish."
              : "An owner or admin of this workspace can add posts."}
          </p>
        </Empty>
      )}
      {posts && posts.length > 0 && (
        <div class="table-wrap">
          <table class="posts">
            <caption class="sr-only">Posts of {agent.name}</caption>
            <thead>
              <tr>
                <th scope="col">Post</th>
                <th scope="col" class="wide-only">Kind</th>
                <th scope="col">Status</th>
                <th scope="col" class="wide-only">Created</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {posts.map((post) => (
                <PostRow key={post.id} post={post} canWrite={canWrite} path={path} onChanged={changed}
                  onDeleted={(message) => {
                    setNotice(message);
                    setPosts((shown) => (shown ?? []).filter((p) => p.id !== post.id));
                  }} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && posts && (
        <button type="button" onClick={() => load(cursor)} disabled={loading} aria-busy={loading}>
          {loading ? "Loading…" : "Load more"}
        </button>
      )}
      {canWrite && <NewPost path={path} onCreated={(post) => {
        setNotice(post.status === "published" ? "Post published." : "Draft saved.");
        setGeneration((g) => g + 1);
      }} />}
    </section>
  );
}

type AgentPath = { workspaceId: string; agentId: string };

function PostRow({ post, canWrite, path, onChanged, onDeleted }: {
  post: Post;
  canWrite: boolean;
  path: AgentPath;
  onChanged: (post: Post, message: string) => void;
  onDeleted: (message: string) => void;
}) {
  // Publishing and deleting share the row's error; only the publish button is marked busy (the delete says it works).
  const { busy, error, setError, run } = useAction();
  const label = post.title || post.caption?.slice(0, 80) || post.key;
  const published = post.status === "published";

  async function toggle() {
    const params = { path: { ...path, postId: post.id } };
    await run(async () => {
      const { post: stored } = await ok(() =>
        published
          ? api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}/unpublish", { params })
          : api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}/publish", { params }),
      );
      onChanged(stored, stored.status === "published" ? `Published: ${label}.` : `Unpublished: ${label}.`);
    });
  }

  return (
    <tr data-post={post.id}>
      <th scope="row">
        <span class="post-title">{label}</span>
        {post.hashtags.length > 0 && <div class="muted small">{post.hashtags.map((h) => "#" + h.replace(/^#/, "")).join(" ")}</div>}
        <ErrorBox error={error} />
      </th>
      <td class="wide-only">{post.kind}</td>
      <td>
        <span class={published ? "badge ok" : "badge"} data-testid="post-status">{published ? "Published" : "Draft"}</span>
      </td>
      <td class="wide-only">
        <time dateTime={post.createdAt}>{new Date(post.createdAt).toLocaleDateString()}</time>
      </td>
      {canWrite && (
        <td>
          <div class="row">
            <button type="button" onClick={toggle} disabled={busy} aria-busy={busy} aria-label={`${published ? "Unpublish" : "Publish"} ${label}`}>
              {busy ? (published ? "Unpublishing…" : "Publishing…") : published ? "Unpublish" : "Publish"}
            </button>
            <ConfirmButton
              label="Delete"
              confirm={`Delete the post ${label}?`}
              onConfirm={async () => {
                setError(null);
                try {
                  await ok(() => api.DELETE("/api/workspaces/{workspaceId}/agents/{agentId}/posts/{postId}", { params: { path: { ...path, postId: post.id } } }));
                  onDeleted(`Deleted: ${label}.`);
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

/** A simple post: a title, a caption, hashtags and the uploaded file it shows (an agent-relative key). */
function NewPost({ path, onCreated }: { path: AgentPath; onCreated: (post: Post) => void }) {
  const items = useLoad(
    () => everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/items", { params: { path, query: { cursor } } }), (l) => l.items),
    [path.workspaceId, path.agentId],
  );
  const prefix = `projects/${path.agentId}/`;
  const files = (items.data ?? []).filter((i) => i.r2Key.startsWith(prefix));
  const [title, setTitle] = useState("");
  const [caption, setCaption] = useState("");
  const [hashtags, setHashtags] = useState("");
  const [key, setKey] = useState("");
  const [publish, setPublish] = useState(false);
  const { busy, error, run } = useAction();
  const chosen = key || files[0]?.r2Key.slice(prefix.length) || "";

  async function create(event: Event) {
    event.preventDefault();
    await run(async () => {
      const tags = hashtags.split(/[\s,]+/).map((t) => t.replace(/^#/, "")).filter(Boolean);
      const { post } = await ok(() =>
        api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/posts", {
          params: { path },
          body: { kind: "text", key: chosen, title: title.trim() || null, caption: caption.trim() || null, hashtags: tags, publish },
        }),
      );
      setTitle("");
      setCaption("");
      setHashtags("");
      onCreated(post);
    });
  }

  return (
    <section aria-labelledby="new-post-heading">
      <h2 id="new-post-heading">New post</h2>
      {items.loading && !items.data && <Loading label="Loading the agent's files…" />}
      <ErrorBox error={items.error} onRetry={items.reload} />
      {items.data && files.length === 0 && (
        <Empty title="A post shows one of the agent's files, and it has none yet.">
          <p>Upload a file under Knowledge first, then come back to write the post.</p>
        </Empty>
      )}
      {files.length > 0 && (
        <form onSubmit={create} aria-busy={busy}>
          <label>
            Title
            <input maxLength={200} required value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            Caption
            <textarea maxLength={2200} rows={4} value={caption} onInput={(e) => setCaption((e.target as HTMLTextAreaElement).value)} />
          </label>
          <label>
            Hashtags
            <span class="hint">Separated by spaces or commas.</span>
            <input value={hashtags} onInput={(e) => setHashtags((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            File it shows
            <select value={chosen} onChange={(e) => setKey((e.target as HTMLSelectElement).value)}>
              {files.map((f) => (
                <option value={f.r2Key.slice(prefix.length)}>{f.name}</option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" checked={publish} onChange={(e) => setPublish((e.target as HTMLInputElement).checked)} />
            Publish now (otherwise it is saved as a draft)
          </label>
          <button type="submit" class="primary" disabled={busy || !title.trim()} aria-busy={busy}>
            {busy ? "Saving…" : publish ? "Publish post" : "Save draft"}
          </button>
        </form>
      )}
      <ErrorBox error={error} />
    </section>
  );
}
