// The owner's answers (authoring.md, "Feedback, unanswered questions and the owner's answers"): where the documents
// do not answer, the owner writes the answer; it becomes the best passage for a message close to its question.
// Opened with ?fromTurn=<turnId> (the insights page's "write the answer"), a form answers that turn's question: the
// API takes the question from the turn itself ({fromTurn, answer}); ?question= only shows it.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import { useAgent } from "../agents/agent";

type Answer = Schemas["Answer"];

export const PAGE_SIZE = 20;
const MAX_QUESTION = 500;
const MAX_ANSWER = 4000;

export function Answers() {
  const { workspace, canWrite } = useWorkspace();
  const { agent } = useAgent();
  const location = useLocation();
  const path = { workspaceId: workspace.id, agentId: agent.id };
  const fromTurn = location.query.fromTurn;
  const asked = location.query.question;

  const page = (cursor?: string) =>
    ok(() =>
      api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/answers", {
        params: { path, query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
      }),
    );
  const first = useLoad(() => page(), [workspace.id, agent.id]);
  // Pages after the first, read one at a time on "Load more"; writes change the list in place (no re-read of all).
  const [more, setMore] = useState<{ answers: Answer[]; nextCursor: string | null } | null>(null);
  const [added, setAdded] = useState<Answer[]>([]);
  const [changed, setChanged] = useState<Record<string, Answer | null>>({}); // null: deleted
  const { busy: loadingMore, error: moreError, run: readMore } = useAction();
  const [notice, setNotice] = useState("");

  const loaded = [...added, ...(first.data?.answers ?? []), ...(more?.answers ?? [])];
  const seen = new Set<string>();
  const answers = loaded
    .filter((a) => !seen.has(a.id) && seen.add(a.id))
    .map((a) => (a.id in changed ? changed[a.id] : a))
    .filter((a): a is Answer => a !== null);
  const nextCursor = more ? more.nextCursor : (first.data?.nextCursor ?? null);

  const created = (answer: Answer, message: string) => {
    setAdded((list) => [answer, ...list]);
    setNotice(message);
  };

  return (
    <section aria-labelledby="answers-title">
      <h1 id="answers-title">Answers</h1>
      <p class="muted">
        Where the documents do not answer, write the answer yourself: a visitor's message close to its question gets it as
        the best passage, and the chat's sources name it.
      </p>
      {notice && <Notice>{notice}</Notice>}

      {fromTurn && canWrite && (
        <FromTurn
          turnId={fromTurn}
          question={asked}
          onSaved={(answer) => {
            created(answer, `Saved your answer to “${answer.question}”.`);
            // The link is used: the page goes back to the plain list (a reload must not offer the form again).
            location.route(href(workspace.id, `/agents/${encodeURIComponent(agent.id)}/answers`), true);
          }}
          create={(body) => ok(() => api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/answers", { params: { path }, body }))}
        />
      )}
      {fromTurn && !canWrite && (
        <Notice>Only the workspace's owner or an admin can answer a visitor's question.</Notice>
      )}

      {canWrite && (
        <AnswerForm
          title="Add an answer"
          submit="Add answer"
          onSubmit={async (body) => {
            const made = await ok(() =>
              api.POST("/api/workspaces/{workspaceId}/agents/{agentId}/answers", { params: { path }, body }),
            );
            created(made.answer, `Added your answer to “${made.answer.question}”.`);
          }}
        />
      )}

      <h2>Your answers</h2>
      {first.loading && !first.data && <Loading label="Loading the answers…" />}
      <ErrorBox error={first.error} onRetry={first.reload} />
      {first.data && answers.length === 0 && (
        <Empty title="No answers yet.">
          <p>
            {canWrite
              ? "Add one above, or open Insights to answer the questions visitors asked that the documents did not answer."
              : "The workspace's owner or an admin writes them."}
          </p>
        </Empty>
      )}
      <ul class="answers">
        {answers.map((answer) => (
          <AnswerRow
            key={answer.id}
            answer={answer}
            canWrite={canWrite}
            onSave={async (body) => {
              const saved = await ok(() =>
                api.PATCH("/api/workspaces/{workspaceId}/agents/{agentId}/answers/{answerId}", {
                  params: { path: { ...path, answerId: answer.id } },
                  body,
                }),
              );
              setChanged((all) => ({ ...all, [answer.id]: saved.answer }));
              setNotice(`Saved your answer to “${saved.answer.question}”.`);
            }}
            onDelete={async () => {
              await ok(() =>
                api.DELETE("/api/workspaces/{workspaceId}/agents/{agentId}/answers/{answerId}", {
                  params: { path: { ...path, answerId: answer.id } },
                }),
              );
              setChanged((all) => ({ ...all, [answer.id]: null }));
              setNotice(`Deleted your answer to “${answer.question}”.`);
            }}
          />
        ))}
      </ul>
      {nextCursor && (
        <button
          type="button"
          disabled={loadingMore}
          aria-busy={loadingMore}
          onClick={() =>
            readMore(async () => {
              const next = await page(nextCursor);
              setMore((m) => ({ answers: [...(m?.answers ?? []), ...next.answers], nextCursor: next.nextCursor }));
            })
          }
        >
          {loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
      <ErrorBox error={moreError} />
    </section>
  );
}

type Fields = { question: string; answer: string };

/** A question and its answer: adding one, or editing one in place. */
function AnswerForm({ title, submit, initial, onSubmit, onCancel }: {
  title?: string;
  submit: string;
  initial?: Fields;
  onSubmit: (fields: Fields) => Promise<void>;
  onCancel?: () => void;
}) {
  const [question, setQuestion] = useState(initial?.question ?? "");
  const [answer, setAnswer] = useState(initial?.answer ?? "");
  const { busy, error, run } = useAction();
  const id = useState(() => Math.random().toString(36).slice(2))[0];
  return (
    <form
      class="answer-form"
      aria-labelledby={title ? `${id}-title` : undefined}
      aria-label={title ? undefined : "Edit the answer"}
      onSubmit={async (event) => {
        event.preventDefault();
        await run(async () => {
          await onSubmit({ question: question.trim(), answer: answer.trim() });
          if (!initial) {
            setQuestion("");
            setAnswer("");
          }
        });
      }}
    >
      {title && <h2 id={`${id}-title`}>{title}</h2>}
      <label>
        Question
        <input required maxLength={MAX_QUESTION} value={question} onInput={(e) => setQuestion((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Answer
        <textarea required maxLength={MAX_ANSWER} value={answer} onInput={(e) => setAnswer((e.target as HTMLTextAreaElement).value)} />
      </label>
      <div class="row">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : submit}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

/** Answering one visitor's turn: the API reads the question from the turn (its receipt), so only the answer is
 * written here. */
function FromTurn({ turnId, question, onSaved, create }: {
  turnId: string;
  question?: string;
  onSaved: (answer: Answer) => void;
  create: (body: { fromTurn: string; answer: string }) => Promise<{ answer: Answer }>;
}) {
  const [answer, setAnswer] = useState("");
  const { busy, error, run } = useAction();
  return (
    <form
      class="answer-form from-turn"
      aria-labelledby="from-turn-title"
      data-turn={turnId}
      onSubmit={async (event) => {
        event.preventDefault();
        await run(async () => {
          const made = await create({ fromTurn: turnId, answer: answer.trim() });
          onSaved(made.answer);
        });
      }}
    >
      <h2 id="from-turn-title">Answer a visitor's question</h2>
      {question ? (
        <p>
          The visitor asked: <strong>“{question}”</strong>
        </p>
      ) : (
        <p class="muted">The question is the one the visitor asked in that turn.</p>
      )}
      <label>
        Your answer
        <textarea required maxLength={MAX_ANSWER} value={answer} onInput={(e) => setAnswer((e.target as HTMLTextAreaElement).value)} />
      </label>
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? "Saving…" : "Save the answer"}
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

function AnswerRow({ answer, canWrite, onSave, onDelete }: {
  answer: Answer;
  canWrite: boolean;
  onSave: (fields: Partial<Fields>) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const removal = useAction();
  const titleId = `answer-${answer.id}`;
  return (
    <li class="answer" data-answer={answer.id} aria-labelledby={titleId}>
      <h3 id={titleId}>{answer.question}</h3>
      {editing ? (
        <AnswerForm
          submit="Save"
          initial={{ question: answer.question, answer: answer.answer }}
          onCancel={() => setEditing(false)}
          onSubmit={async (fields) => {
            // Only what changed is sent (a PATCH of the same text is a no-op anyway).
            const body: Partial<Fields> = {};
            if (fields.question !== answer.question) body.question = fields.question;
            if (fields.answer !== answer.answer) body.answer = fields.answer;
            if (Object.keys(body).length) await onSave(body);
            setEditing(false);
          }}
        />
      ) : (
        <>
          <p class="answer-text">{answer.answer}</p>
          <p class="muted">Updated {new Date(answer.updatedAt).toLocaleString()}</p>
          {canWrite && (
            <div class="row">
              <button type="button" onClick={() => setEditing(true)}>
                Edit
              </button>
              <ConfirmButton
                label="Delete"
                confirm={`Delete your answer to “${answer.question}”?`}
                onConfirm={() => removal.run(onDelete)}
              />
            </div>
          )}
        </>
      )}
      <ErrorBox error={removal.error} />
    </li>
  );
}
