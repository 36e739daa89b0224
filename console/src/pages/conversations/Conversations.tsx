// An agent's stored conversations (owners and admins): every visitor's threads, newest first, one page at a time and
// filtered by visitor and time; a thread's turns with the ratings and sources the feedback list holds; an export as
// JSON Lines built from the listing (one turn a line, as `workspace-client conversations export` writes it); and a
// visitor's erasure for a privacy request.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice, Progress } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import { useAgent } from "../agents/agent";
import { LoadMore, fromLocalInput, usePaged, when } from "./lists";

type Thread = Schemas["Thread"];
type Feedback = Schemas["Feedback"];
type Filters = { client?: string; since?: string; until?: string };

const PAGE = 25;
// The feedback list is read once (its newest page) when a first thread is opened, never once per turn.
const FEEDBACK_PAGE = 100;
const CLIENT_PATTERN = "[A-Za-z0-9_\\-]+";

export function Conversations() {
  const { workspace, canReadPrivate, canWrite } = useWorkspace();
  const { agent } = useAgent();
  const [filters, setFilters] = useState<Filters>({});
  const [open, setOpen] = useState<Thread | null>(null);
  const [erased, setErased] = useState<{ client: string; deleted: number } | null>(null);
  const path = { workspaceId: workspace.id, agentId: agent.id };
  const threads = usePaged(
    (cursor) =>
      ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/conversations", { params: { path, query: { limit: PAGE, cursor, ...filters } } })).then(
        (page) => ({ items: page.threads, nextCursor: page.nextCursor }),
      ),
    [workspace.id, agent.id, filters.client, filters.since, filters.until],
  );
  const feedback = useRef<Promise<Map<string, Feedback>> | null>(null);
  const ratings = () =>
    (feedback.current ??= ok(() =>
      api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/feedback", { params: { path, query: { limit: FEEDBACK_PAGE } } }),
    ).then((page) => new Map(page.feedback.map((f) => [f.turnId, f]))));

  if (!canReadPrivate)
    return (
      <section>
        <h1>Conversations</h1>
        <p>Only the workspace's owner and admins read visitors' conversations.</p>
      </section>
    );

  async function erase(client: string) {
    const done = await ok(() =>
      api.DELETE("/api/workspaces/{workspaceId}/agents/{agentId}/conversations", {
        params: { path, query: { client }, header: { "Idempotency-Key": crypto.randomUUID() } },
      }),
    );
    setErased({ client, deleted: done.deleted });
    feedback.current = null;
    if (open?.client === client) setOpen(null);
    threads.reload();
  }

  return (
    <section>
      <h1>Conversations</h1>
      {!workspace.storeConversations && (
        <div class="empty" data-testid="not-stored">
          <p>
            <strong>This workspace does not store conversations.</strong> Visitors' messages and replies are not kept,
            so there is nothing new to read here. Turns stored before the setting was turned off stay until they are
            erased or their retention ends.
          </p>
          <p>
            <a href={href(workspace.id, "/settings")}>Turn on “Store conversations” in the workspace's settings</a>.
          </p>
        </div>
      )}
      <FilterForm filters={filters} onChange={(next) => { setFilters(next); setOpen(null); }} />
      {erased && (
        <Notice>
          Erased {erased.deleted} {erased.deleted === 1 ? "turn" : "turns"} of visitor <code>{erased.client}</code>.
        </Notice>
      )}
      <ErrorBox error={threads.error} onRetry={threads.reload} />
      {threads.loading ? (
        <Loading label="Reading the threads…" />
      ) : threads.items.length === 0 && !threads.error ? (
        <Empty title={filters.client || filters.since || filters.until ? "No thread matches these filters." : "No conversations yet."}>
          <p>
            {filters.client || filters.since || filters.until
              ? "Clear the filters to see every visitor's threads."
              : "Threads appear here once visitors chat with the agent through a key on their page."}
          </p>
        </Empty>
      ) : (
        <ThreadTable threads={threads.items} open={open} onOpen={setOpen} onVisitor={(client) => setFilters({ ...filters, client })} />
      )}
      <LoadMore paged={threads} label="Load more threads" />
      {open && (
        <ThreadView
          key={open.client + "/" + open.threadKey}
          thread={open}
          ratings={ratings}
          canWrite={canWrite}
          onErase={erase}
          onClose={() => setOpen(null)}
        />
      )}
      <Export filters={filters} />
      {canWrite && <EraseVisitor onErase={erase} />}
    </section>
  );
}

function FilterForm({ filters, onChange }: { filters: Filters; onChange: (next: Filters) => void }) {
  const [client, setClient] = useState(filters.client ?? "");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  useEffect(() => setClient(filters.client ?? ""), [filters.client]);
  return (
    <form
      class="inline"
      aria-label="Filter the threads"
      onSubmit={(event) => {
        event.preventDefault();
        onChange({ client: client.trim() || undefined, since: fromLocalInput(since), until: fromLocalInput(until) });
      }}
    >
      <label>
        Visitor
        <input
          name="client"
          value={client}
          onInput={(e) => setClient((e.target as HTMLInputElement).value)}
          minLength={16}
          maxLength={128}
          pattern={CLIENT_PATTERN}
          placeholder="the visitor's id (client)"
          autoComplete="off"
          spellcheck={false}
        />
      </label>
      <label>
        Last turn from
        <input type="datetime-local" name="since" value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Last turn before
        <input type="datetime-local" name="until" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Filter</button>
      {(filters.client || filters.since || filters.until) && (
        <button
          type="button"
          onClick={() => {
            setClient("");
            setSince("");
            setUntil("");
            onChange({});
          }}
        >
          Clear filters
        </button>
      )}
    </form>
  );
}

function ThreadTable({ threads, open, onOpen, onVisitor }: {
  threads: Thread[];
  open: Thread | null;
  onOpen: (thread: Thread) => void;
  onVisitor: (client: string) => void;
}) {
  return (
    <div class="table-wrap">
      <table data-testid="threads">
        <caption class="sr-only">Threads, most recent first</caption>
        <thead>
          <tr>
            <th scope="col">Visitor</th>
            <th scope="col">Turns</th>
            <th scope="col">Started</th>
            <th scope="col">Last turn</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {threads.map((t) => (
            <tr data-thread={t.threadKey} data-client={t.client} aria-current={open?.threadKey === t.threadKey && open.client === t.client ? "true" : undefined}>
              <td>
                <code class="visitor">{t.client}</code>
              </td>
              <td>{t.turns}</td>
              <td>
                <time dateTime={t.startedAt}>{when(t.startedAt)}</time>
              </td>
              <td>
                <time dateTime={t.lastAt}>{when(t.lastAt)}</time>
              </td>
              <td class="row">
                <button type="button" onClick={() => onOpen(t)}>
                  Read<span class="sr-only"> the thread of {t.client} started {when(t.startedAt)}</span>
                </button>
                <button type="button" class="link" onClick={() => onVisitor(t.client)}>
                  Only this visitor<span class="sr-only"> ({t.client})</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ThreadView({ thread, ratings, canWrite, onErase, onClose }: {
  thread: Thread;
  ratings: () => Promise<Map<string, Feedback>>;
  canWrite: boolean;
  onErase: (client: string) => Promise<void>;
  onClose: () => void;
}) {
  const { workspace } = useWorkspace();
  const { agent } = useAgent();
  const heading = useRef<HTMLHeadingElement>(null);
  const [eraseError, setEraseError] = useState<unknown>(null);
  const loaded = useLoad(
    () =>
      Promise.all([
        ok(() =>
          api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/conversations/{threadKey}", {
            params: { path: { workspaceId: workspace.id, agentId: agent.id, threadKey: thread.threadKey }, query: { client: thread.client } },
          }),
        ),
        // A thread still reads without its ratings when the feedback list fails.
        ratings().catch(() => null),
      ]),
    [thread.threadKey, thread.client],
  );
  useEffect(() => heading.current?.focus(), []);
  const [turns, rated] = loaded.data ?? [undefined, null];
  return (
    <section class="thread" aria-labelledby="thread-heading" data-testid="thread">
      <h2 id="thread-heading" ref={heading} tabIndex={-1}>
        Thread of visitor <code class="visitor">{thread.client}</code>
      </h2>
      <p class="row">
        <span class="muted">
          Started <time dateTime={thread.startedAt}>{when(thread.startedAt)}</time>, {thread.turns} {thread.turns === 1 ? "turn" : "turns"}
        </span>
        <button type="button" onClick={onClose}>
          Close the thread
        </button>
        {canWrite && (
          <ConfirmButton
            label="Erase this visitor"
            confirm={`Erase every stored turn of ${thread.client}?`}
            onConfirm={() => onErase(thread.client).catch(setEraseError)}
          />
        )}
      </p>
      <ErrorBox error={eraseError} />
      {loaded.loading && !turns && <Loading label="Reading the turns…" />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {turns && turns.turns.length === 0 && <Empty title="This thread has no stored turns left." />}
      {turns && turns.turns.length > 0 && (
        <>
          <ol class="turns">
            {turns.turns.map((turn) => (
              <Turn turn={turn} rating={rated?.get(turn.turnId)} />
            ))}
          </ol>
          <p class="muted">
            {rated === null
              ? "The ratings could not be read."
              : `Ratings and sources come from the newest ${FEEDBACK_PAGE} ratings of this agent; the sources of a reply are kept with its rating only.`}
          </p>
        </>
      )}
    </section>
  );
}

function Turn({ turn, rating }: { turn: Schemas["StoredTurn"]; rating: Feedback | undefined }) {
  return (
    <li class="turn" data-turn={turn.turnId}>
      <p class="said">
        <span class="who">Visitor</span> <span data-field="prompt">{turn.prompt}</span>
      </p>
      <p class="said">
        <span class="who">Agent</span> <span data-field="reply">{turn.reply}</span>
      </p>
      <p class="row muted">
        <time dateTime={turn.createdAt}>{when(turn.createdAt)}</time>
        <span data-field="credits">
          {turn.credits} {turn.credits === 1 ? "credit" : "credits"}
        </span>
        {rating && (
          <span class={"badge " + (rating.rating === "up" ? "ok" : "bad")} data-field="rating" data-rating={rating.rating}>
            {rating.rating === "up" ? "Thumbs up" : "Thumbs down"}
          </span>
        )}
      </p>
      {rating?.comment && (
        <p>
          <span class="who">Comment</span> {rating.comment}
        </p>
      )}
      {rating && rating.sources.length > 0 && (
        <div>
          <span class="who">Sources</span>
          <ul class="sources">
            {rating.sources.map((s) => (
              <li>
                {s.name}
                {s.where && <span class="muted"> ({s.where})</span>}
                {s.answerId && <span class="muted"> (your answer)</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

/** Every turn the listing holds (with the current filters) as JSON Lines, read page by page and thread by thread
 * with progress, then offered as a download. Not resumable: a stopped or failed export offers what it read. */
function Export({ filters }: { filters: Filters }) {
  const { workspace } = useWorkspace();
  const { agent } = useAgent();
  const [state, setState] = useState<{
    running: boolean;
    threadsDone: number;
    threadsFound: number;
    turns: number;
    morePages: boolean;
    error?: unknown;
    url?: string;
    stopped?: boolean;
  } | null>(null);
  const stop = useRef(false);
  useEffect(() => () => {
    if (state?.url) URL.revokeObjectURL(state.url);
  }, [state?.url]);

  async function run() {
    stop.current = false;
    const lines: string[] = [];
    let threadsDone = 0;
    let threadsFound = 0;
    let cursor: string | undefined;
    let error: unknown;
    const path = { workspaceId: workspace.id, agentId: agent.id };
    setState({ running: true, threadsDone, threadsFound, turns: 0, morePages: true });
    try {
      do {
        const page = await ok(() =>
          api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/conversations", { params: { path, query: { limit: 200, cursor, ...filters } } }),
        );
        threadsFound += page.threads.length;
        cursor = page.nextCursor ?? undefined;
        for (const thread of page.threads) {
          if (stop.current) break;
          const read = await ok(() =>
            api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/conversations/{threadKey}", {
              params: { path: { ...path, threadKey: thread.threadKey }, query: { client: thread.client } },
            }),
          );
          for (const turn of read.turns)
            lines.push(JSON.stringify({ agentId: agent.id, threadKey: thread.threadKey, client: thread.client, ...turn }));
          threadsDone += 1;
          setState({ running: true, threadsDone, threadsFound, turns: lines.length, morePages: Boolean(cursor) });
        }
      } while (cursor && !stop.current);
    } catch (failure) {
      error = failure;
    }
    const blob = new Blob(lines.length ? [lines.join("\n") + "\n"] : [], { type: "application/x-ndjson" });
    setState({
      running: false,
      threadsDone,
      threadsFound,
      turns: lines.length,
      morePages: Boolean(cursor),
      error,
      stopped: stop.current,
      url: URL.createObjectURL(blob),
    });
  }

  const name = `conversations-${agent.slug ?? agent.id}.jsonl`;
  return (
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p class="muted">One turn a line (JSON Lines) with its agent, thread and visitor, for the threads the filters above select.</p>
      <p class="row">
        <button type="button" onClick={run} disabled={state?.running} aria-busy={state?.running}>
          {state?.running ? "Exporting…" : "Export as JSON Lines"}
        </button>
        {state?.running && (
          <button type="button" onClick={() => (stop.current = true)}>
            Stop
          </button>
        )}
      </p>
      {state?.running && (
        <Progress
          value={state.threadsDone}
          max={Math.max(state.threadsFound, 1)}
          label={`${state.threadsDone} of ${state.threadsFound}${state.morePages ? "+" : ""} threads, ${state.turns} turns`}
        />
      )}
      <ErrorBox error={state?.error} />
      {state && !state.running && state.url && (
        <p role="status" data-testid="export-done">
          {state.error || state.stopped ? "Stopped after " : "Read "}
          {state.threadsDone} {state.threadsDone === 1 ? "thread" : "threads"}, {state.turns} {state.turns === 1 ? "turn" : "turns"}.{" "}
          {state.turns > 0 ? (
            <a href={state.url} download={name}>
              Download {name}
              {state.error || state.stopped ? " (what was read)" : ""}
            </a>
          ) : (
            <span>Nothing to download: no stored turn matches.</span>
          )}
        </p>
      )}
    </section>
  );
}

function EraseVisitor({ onErase }: { onErase: (client: string) => Promise<void> }) {
  const [client, setClient] = useState("");
  const { error, run } = useAction();
  const input = useRef<HTMLInputElement>(null);
  const valid = client.length >= 16 && client.length <= 128 && /^[A-Za-z0-9_-]+$/.test(client);
  return (
    <section aria-labelledby="erase-heading">
      <h2 id="erase-heading">Erase a visitor</h2>
      <p class="muted">
        For a privacy request: every turn one visitor stored with this agent is erased, and the audit log
        records how many (never their text).
      </p>
      <form class="inline" onSubmit={(event) => event.preventDefault()}>
        <label>
          Visitor's id
          <input
            ref={input}
            name="erase-client"
            value={client}
            onInput={(e) => setClient((e.target as HTMLInputElement).value.trim())}
            minLength={16}
            maxLength={128}
            pattern={CLIENT_PATTERN}
            autoComplete="off"
            spellcheck={false}
            aria-describedby="erase-help"
          />
        </label>
        <ConfirmButton
          label="Erase the visitor"
          confirm={`Erase every stored turn of ${client}?`}
          disabled={!valid}
          onConfirm={() =>
            run(async () => {
              await onErase(client);
              setClient("");
            })
          }
        />
      </form>
      <p id="erase-help" class="muted">
        The visitor's id is the <code>client</code> their chat sent: 16 to 128 letters, digits, “-” or “_”.
      </p>
      <ErrorBox error={error} />
    </section>
  );
}
