// The workspace's audit log (GET /api/workspaces/{id}/audit): every write, newest first, one page at a time with
// "Load more". The API names people and things by id; the page reads the members, keys and agents once and shows
// names and addresses instead, and says each action in words. The owner's and admins' only (a member gets 403).
import { useState } from "preact/hooks";
import { api, everyListed, ok, type Schemas } from "../../api/client";
import { Empty, ErrorBox, Loading } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { loadPeople, personName, when, type People } from "../members/people";

type Entry = Schemas["AuditEntry"];
type Names = { people?: People; keys: Map<string, string>; agents: Map<string, string> };

const PAGE = 50;
const NO_NAMES: Names = { keys: new Map(), agents: new Map() };

/** Each action as a sentence's verb and what it acts on; an action the console does not know yet is shown as is. */
const ACTIONS: Record<string, string> = {
  "workspace.update": "changed the workspace's settings",
  "workspace.transfer": "gave the workspace to",
  "member.invite": "invited someone",
  "member.join": "joined the workspace",
  "member.role": "changed the role of",
  "member.remove": "removed",
  "member.leave": "left the workspace",
  "invitation.revoke": "revoked an invitation",
  "invitation.void": "voided an invitation (its inviter no longer may invite)",
  "key.mint": "minted the key",
  "key.revoke": "revoked the key",
  "agent.create": "created the agent",
  "agent.update": "changed the agent",
  "agent.delete": "deleted the agent",
  "answer.create": "wrote an answer for",
  "answer.update": "changed an answer",
  "answer.delete": "deleted an answer",
  "post.create": "wrote a post for",
  "post.update": "changed a post",
  "post.publish": "published a post",
  "post.unpublish": "unpublished a post",
  "post.delete": "deleted a post",
  "item.create": "added an item to",
  "item.update": "changed an item",
  "item.delete": "deleted an item",
  "brand.create": "created a brand",
  "brand.update": "changed a brand",
  "brand.delete": "deleted a brand",
  "workflow.create": "created a workflow",
  "workflow.update": "changed a workflow",
  "workflow.delete": "deleted a workflow",
  "object.upload": "uploaded",
  "object.delete": "deleted the file",
  "conversation.erase": "erased a visitor's conversations",
};

/** What an entry's target (`kind:id`) names, in words, where the page knows it. */
function targetWords(entry: Entry, names: Names): string {
  const colon = entry.target.indexOf(":");
  const kind = colon > 0 ? entry.target.slice(0, colon) : "";
  const id = colon > 0 ? entry.target.slice(colon + 1) : entry.target;
  switch (kind) {
    case "user":
      // "joined" and "left" are about the actor themselves: no object to name.
      return entry.action === "member.join" || entry.action === "member.leave" ? "" : personName(names.people, id);
    case "key": {
      const name = names.keys.get(id);
      return name ? `“${name}”` : "(a key since deleted)";
    }
    case "agent": {
      const name = names.agents.get(id);
      if (name) return `“${name}”`;
      return entry.action === "agent.delete" ? "(deleted)" : "(an agent since deleted)";
    }
    case "object":
      return id.split("/").pop() || id;
    case "workspace":
      return "";
    default:
      // answers, posts, items, brands, workflows, invitations: the verb says enough; their ids mean nothing to a person.
      return "";
  }
}

function sentence(entry: Entry, names: Names): string {
  const verb = ACTIONS[entry.action] ?? `did “${entry.action.replace(/[._]/g, " ")}” to`;
  const target = targetWords(entry, names);
  const count =
    entry.count == null
      ? ""
      : entry.action === "conversation.erase"
        ? ` (${entry.count} ${entry.count === 1 ? "turn" : "turns"})`
        : ` (${entry.count})`;
  return [verb, target].filter(Boolean).join(" ") + count;
}

export function Audit() {
  const { workspace, canReadPrivate } = useWorkspace();
  if (!canReadPrivate)
    return (
      <section>
        <h1>Audit log</h1>
        <Empty title="The audit log is for the workspace's owner and admins.">
          <p>Ask one of them if you need to know who changed something.</p>
        </Empty>
      </section>
    );
  return <AuditLog workspaceId={workspace.id} />;
}

function AuditLog({ workspaceId }: { workspaceId: string }) {
  // Names once for the whole log: the members (people), the keys and the agents (what entries act on). A failure
  // of these leaves ids in words ("a former member"), never the log unread.
  const names = useLoad(async (): Promise<Names> => {
    const [people, keys, agents] = await Promise.all([
      loadPeople(workspaceId).catch(() => undefined),
      everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/keys", { params: { path: { workspaceId }, query: { cursor } } }), (k) => k.keys).catch(() => []),
      everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/agents", { params: { path: { workspaceId }, query: { cursor } } }), (a) => a.agents).catch(() => []),
    ]);
    return {
      people,
      keys: new Map(keys.map((k) => [k.id, k.name])),
      agents: new Map(agents.map((a) => [a.id, a.name])),
    };
  }, [workspaceId]);
  const first = useLoad(
    () => ok(() => api.GET("/api/workspaces/{workspaceId}/audit", { params: { path: { workspaceId }, query: { limit: PAGE } } })),
    [workspaceId],
  );
  // Pages after the first, appended by "Load more" (never every page at once).
  const [more, setMore] = useState<{ entries: Entry[]; nextCursor: string | null } | null>(null);
  const { busy: loadingMore, error: moreError, run } = useAction();
  const entries = [...(first.data?.entries ?? []), ...(more?.entries ?? [])];
  const cursor = more ? more.nextCursor : first.data?.nextCursor;

  async function loadMore() {
    if (!cursor) return;
    await run(async () => {
      const page = await ok(() =>
        api.GET("/api/workspaces/{workspaceId}/audit", { params: { path: { workspaceId }, query: { limit: PAGE, cursor } } }),
      );
      setMore((m) => ({ entries: [...(m?.entries ?? []), ...page.entries], nextCursor: page.nextCursor }));
    });
  }

  const ready = first.data && !names.loading;
  return (
    <section>
      <h1>Audit log</h1>
      <p class="muted">
        Every change made to this workspace, newest first: who made it, what it was, and the request's id to quote to
        support. It never holds a key, a document or what visitors wrote.
      </p>
      {(first.loading || names.loading) && !ready && <Loading label="Loading the audit log…" />}
      <ErrorBox
        error={first.error}
        onRetry={async () => {
          setMore(null);
          await first.reload();
        }}
      />
      {ready && entries.length === 0 && (
        <Empty title="Nothing has been changed in this workspace yet.">
          <p>Each change (an agent created, a key minted, someone invited) will be listed here.</p>
        </Empty>
      )}
      {ready && entries.length > 0 && (
        <div class="table-wrap">
          <table class="audit">
            <caption class="sr-only">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col" class="request">
                  Request
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr data-action={entry.action}>
                  <td>
                    <time dateTime={entry.createdAt}>{when(entry.createdAt)}</time>
                  </td>
                  <td class="who">{personName(names.data?.people, entry.actorId)}</td>
                  <td class="what">{sentence(entry, names.data ?? NO_NAMES)}</td>
                  <td class="request">
                    <code class="muted small">{entry.requestId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorBox error={moreError} onRetry={loadMore} />
      {ready && cursor && (
        <button type="button" onClick={loadMore} disabled={loadingMore} aria-busy={loadingMore}>
          {loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
      {ready && !cursor && entries.length > 0 && <p class="muted">That is the whole log.</p>}
    </section>
  );
}
