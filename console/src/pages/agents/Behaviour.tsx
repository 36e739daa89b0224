// How the agent answers (its `behaviour`), beside a preview chat that tries the editor's words before they are saved:
// POST …/preview with the form as `behaviour` (an override for that turn only) streams the chat's NDJSON, read here
// line by line as it arrives: the reply as it is written, then the passages retrieval considered with their scores,
// then the sources the reply drew on. A preview is billed to the workspace owner like a visitor's turn.
// A member may try the agent (the API lets them preview) but sees no Save button (the API refuses their PATCH).
import { useMemo, useRef, useState } from "preact/hooks";
import { ApiError, api, ok, type Schemas } from "../../api/client";
import { ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { useAgent } from "./agent";

type Behaviour = Schemas["Behaviour"];
type Model = Schemas["ModelInfo"];
type Passage = Schemas["ConsideredPassage"];
type Source = Schemas["ChatSource"];
type StreamEvent =
  | Schemas["ChatStartEvent"]
  | Schemas["ChatDeltaEvent"]
  | Schemas["ChatKeepaliveEvent"]
  | Schemas["ChatRetrievalEvent"]
  | Schemas["ChatSourcesEvent"]
  | Schemas["ChatDoneEvent"]
  | Schemas["ChatErrorEvent"];

const DEFAULTS: Behaviour = { instructions: "", model: null, temperature: 0.3, maxReplyTokens: 512, knowledgeOnly: true, fallback: "" };

export function Behaviour() {
  const { agent, reload } = useAgent();
  const { workspace, canWrite } = useWorkspace();
  const models = useLoad(() => ok(() => api.GET("/api/models")).then((m) => m.models), []);
  const [form, setForm] = useState<Behaviour>({ ...DEFAULTS, ...agent.behaviour });
  const { busy: saving, error, run } = useAction();
  const [saved, setSaved] = useState("");
  const changed = JSON.stringify(form) !== JSON.stringify({ ...DEFAULTS, ...agent.behaviour });

  const set = <K extends keyof Behaviour>(field: K, value: Behaviour[K]) => {
    setSaved("");
    setForm((f) => ({ ...f, [field]: value }));
  };

  async function save(event: Event) {
    event.preventDefault();
    setSaved("");
    await run(async () => {
      const { agent: stored } = await ok(() =>
        api.PATCH("/api/workspaces/{workspaceId}/agents/{agentId}", {
          params: { path: { workspaceId: workspace.id, agentId: agent.id } },
          body: { behaviour: form },
        }),
      );
      setForm({ ...DEFAULTS, ...stored.behaviour });
      setSaved("Saved: visitors' next turns answer this way.");
      await reload();
    });
  }

  return (
    <>
      <h1>{agent.name}: behaviour and preview</h1>
      <div class="split behaviour">
        <section aria-labelledby="behaviour-heading">
          <h2 id="behaviour-heading">How it answers</h2>
          {!canWrite && (
            <p class="muted">Your role can try changes in the preview; an owner or admin saves them.</p>
          )}
          <form onSubmit={save} aria-busy={saving}>
            <label>
              Instructions
              <span class="hint">Persona, tone, scope, what to push and what to avoid. The service's own rules come first.</span>
              <textarea maxLength={8000} rows={8} value={form.instructions}
                onInput={(e) => set("instructions", (e.target as HTMLTextAreaElement).value)} />
              <span class="muted small">{form.instructions.length} / 8,000 characters</span>
            </label>
            <ModelField models={models.data} error={models.error} value={form.model} onChange={(m) => set("model", m)} />
            <label>
              Temperature <output for="temperature">{form.temperature.toFixed(2)}</output>
              <span class="hint">Lower keeps to the material's words; higher varies them.</span>
              <input id="temperature" type="range" min={0} max={1} step={0.05} value={form.temperature}
                onInput={(e) => set("temperature", Number((e.target as HTMLInputElement).value))} />
            </label>
            <label>
              Longest reply (tokens)
              <span class="hint">From 64 to 4,096; the reply stops there.</span>
              <input type="number" min={64} max={4096} step={1} required value={form.maxReplyTokens}
                onInput={(e) => set("maxReplyTokens", Number((e.target as HTMLInputElement).value))} />
            </label>
            <label class="check">
              <input type="checkbox" checked={form.knowledgeOnly}
                onChange={(e) => set("knowledgeOnly", (e.target as HTMLInputElement).checked)} />
              Answer only from this agent's documents and posts
            </label>
            <p class="hint indent">
              {form.knowledgeOnly
                ? "Where the material is silent, it says the fallback below."
                : "Where the material is silent, it may use general knowledge, and says so."}
            </p>
            <label>
              Fallback
              <span class="hint">What it says when its material has no answer (empty: that it does not know, and what it can help with).</span>
              <textarea maxLength={500} rows={3} value={form.fallback}
                onInput={(e) => set("fallback", (e.target as HTMLTextAreaElement).value)} />
            </label>
            {canWrite && (
              <div class="row">
                <button type="submit" class="primary" disabled={saving || !changed} aria-busy={saving}>
                  {saving ? "Saving…" : "Save behaviour"}
                </button>
                {changed && <span class="muted">Unsaved changes: the preview already uses them.</span>}
              </div>
            )}
          </form>
          <ErrorBox error={error} />
          {saved && <Notice>{saved}</Notice>}
        </section>
        <Preview behaviour={form} models={models.data} />
      </div>
    </>
  );
}

function ModelField({ models, error, value, onChange }: {
  models: Model[] | undefined;
  error: unknown;
  value: string | null;
  onChange: (model: string | null) => void;
}) {
  if (error) return <ErrorBox error={error} />;
  if (!models) return <Loading label="Loading models…" />;
  const fallback = models.find((m) => m.default);
  const chosen = models.find((m) => m.id === value) ?? fallback;
  return (
    <label>
      Model
      <select value={value ?? ""} onChange={(e) => onChange((e.target as HTMLSelectElement).value || null)}>
        <option value="">Default{fallback ? ` (${fallback.name}, ${credits(fallback.creditsPerTurn)} a turn)` : ""}</option>
        {models.map((m) => (
          <option value={m.id}>
            {m.name} ({credits(m.creditsPerTurn)} a turn)
          </option>
        ))}
        {value && !models.some((m) => m.id === value) && <option value={value}>{value} (no longer offered: the default answers)</option>}
      </select>
      {chosen && (
        <span class="hint" data-testid="model-price">
          {chosen.name}: {credits(chosen.creditsPerTurn)} per turn, {chosen.provider}, {chosen.contextTokens.toLocaleString()} tokens of context.
        </span>
      )}
    </label>
  );
}

function credits(n: number): string {
  return `${n} ${n === 1 ? "credit" : "credits"}`;
}

type Turn = {
  prompt: string;
  reply: string;
  passages: Passage[] | null;
  sources: Source[] | null;
  credits: number | null;
  error: unknown;
  streaming: boolean;
};

/** The preview chat: each send streams one turn; earlier turns go back as `history`, as the widget sends them. */
function Preview({ behaviour, models }: { behaviour: Behaviour; models: Model[] | undefined }) {
  const { agent } = useAgent();
  const { workspace } = useWorkspace();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [prompt, setPrompt] = useState("");
  const stop = useRef<AbortController | null>(null);
  const streaming = turns.some((t) => t.streaming);
  const price = useMemo(() => {
    const model = models?.find((m) => m.id === behaviour.model) ?? models?.find((m) => m.default);
    return model?.creditsPerTurn;
  }, [models, behaviour.model]);

  const update = (index: number, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((t, n) => (n === index ? { ...t, ...change(t) } : t)));

  async function send(event: Event) {
    event.preventDefault();
    const text = prompt.trim();
    if (!text || streaming) return;
    const history = turns
      .filter((t) => t.reply && !t.error)
      .flatMap((t) => [{ role: "user", content: t.prompt }, { role: "assistant", content: t.reply }]);
    const index = turns.length;
    setTurns((all) => [...all, { prompt: text, reply: "", passages: null, sources: null, credits: null, error: null, streaming: true }]);
    setPrompt("");
    const controller = new AbortController();
    stop.current = controller;
    try {
      const body = await ok(() =>
        api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/preview", {
          params: { path: { workspaceId: workspace.id, agentId: agent.id } },
          body: { prompt: text, history: history.slice(-50), behaviour },
          parseAs: "stream",
          signal: controller.signal,
        }),
      );
      if (!body) throw new Error("the preview answered without a body");
      for await (const line of ndjson(body)) {
        const streamEvent = line as StreamEvent;
        switch (streamEvent.type) {
          case "delta":
            update(index, (t) => ({ reply: t.reply + streamEvent.text }));
            break;
          case "retrieval":
            update(index, () => ({ passages: streamEvent.passages }));
            break;
          case "sources":
            update(index, () => ({ sources: streamEvent.sources }));
            break;
          case "done":
            update(index, () => ({ credits: streamEvent.usage.credits }));
            break;
          case "error":
            update(index, () => ({ error: new ApiError(200, streamEvent.code, streamEvent.message) }));
            break;
          default:
            break; // start and keepalive carry nothing to show
        }
      }
    } catch (e) {
      if (!(e instanceof DOMException && e.name === "AbortError")) update(index, () => ({ error: e }));
    } finally {
      update(index, () => ({ streaming: false }));
      stop.current = null;
    }
  }

  return (
    <section aria-labelledby="preview-heading" class="preview">
      <h2 id="preview-heading">Try it</h2>
      <p class="muted small" data-testid="preview-billing">
        A preview is billed to the workspace owner like a visitor's turn
        {price !== undefined ? ` (${credits(price)} on this model)` : ""}, and is never stored as a conversation. It uses
        the form as it is now, saved or not.
      </p>
      <div class="chat-log" aria-live="polite" aria-busy={streaming} data-testid="preview-log">
        {turns.length === 0 && <p class="muted">Ask what a visitor would ask: the reply, and the passages behind it, appear here.</p>}
        {turns.map((turn) => (
          <PreviewTurn turn={turn} />
        ))}
      </div>
      <form class="preview-ask" onSubmit={send}>
        <label>
          Your question
          <textarea rows={2} maxLength={4000} required value={prompt}
            onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) send(e);
            }} />
        </label>
        <div class="row">
          <button type="submit" class="primary" disabled={streaming || !prompt.trim()} aria-busy={streaming}>
            {streaming ? "Answering…" : "Send"}
          </button>
          {streaming && (
            <button type="button" onClick={() => stop.current?.abort()}>
              Stop
            </button>
          )}
          {!streaming && turns.length > 0 && (
            <button type="button" onClick={() => setTurns([])}>
              Start over
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

function PreviewTurn({ turn }: { turn: Turn }) {
  return (
    <article class="turn" data-testid="preview-turn">
      <p class="said">
        <span class="who">You</span> {turn.prompt}
      </p>
      <div class="reply">
        <span class="who">Agent</span>{" "}
        <span data-testid="preview-reply">{turn.reply}</span>
        {turn.streaming && !turn.reply && <Loading label="Answering…" />}
      </div>
      <ErrorBox error={turn.error} />
      {turn.credits !== null && (
        <p class="muted small" data-testid="preview-credits">
          Billed {credits(turn.credits)}.
        </p>
      )}
      {turn.passages && (
        <details class="passages" open>
          <summary>
            Passages considered ({turn.passages.length}, best first)
          </summary>
          {turn.passages.length === 0 ? (
            <p class="muted">No passage matched: the agent has no material on this, so it gave its fallback.</p>
          ) : (
            <ol>
              {turn.passages.map((p) => (
                <li data-testid="preview-passage">
                  <p class="row">
                    <span class="badge" data-testid="passage-score">score {p.score.toFixed(2)}</span>
                    <span class={p.used ? "badge ok" : "badge"}>{p.used ? "used" : "passed over"}</span>
                    <strong>{p.source.name}</strong>
                    {p.where && <span class="muted">{p.where}</span>}
                  </p>
                  <blockquote>{p.text}</blockquote>
                </li>
              ))}
            </ol>
          )}
        </details>
      )}
      {turn.sources && (
        <div class="sources" data-testid="preview-sources">
          <strong>Sources:</strong>{" "}
          {turn.sources.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <ul>
              {turn.sources.map((s) => (
                <li>
                  {s.name}
                  {s.where && <span class="muted"> ({s.where})</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </article>
  );
}

/** Each JSON line of an NDJSON stream as it arrives (a line may span chunks; a last line may lack its newline). */
async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      pending += decoder.decode(value, { stream: !done });
      const lines = pending.split("\n");
      pending = done ? "" : lines.pop()!;
      for (const line of lines) if (line.trim()) yield JSON.parse(line);
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
