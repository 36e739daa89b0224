// What visitors did with an agent (owners and admins): turns, threads and visitors, thumbs and unanswered turns per
// day as charts (each beside a table of the same numbers), the top questions and sources, the unanswered questions
// and the thumbs-down each with a one-click "Write the answer" (the Answers tab's form, prefilled from the turn), and
// the agent's usage per day over every key.
import { useState } from "preact/hooks";
import { api, ok, type Schemas } from "../../api/client";
import { Chart } from "../../ui/Chart";
import { Empty, ErrorBox, Loading } from "../../ui/Status";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import { useAgent } from "../agents/agent";
import { LoadMore, usePaged, when } from "../conversations/lists";

const PERIODS = [7, 30, 90] as const;
const PAGE = 20;

export function Insights() {
  const { workspace, canReadPrivate } = useWorkspace();
  const { agent } = useAgent();
  const [days, setDays] = useState<number>(30);
  if (!canReadPrivate)
    return (
      <section>
        <h1>Insights</h1>
        <p>Only the workspace's owner and admins read an agent's insights.</p>
      </section>
    );
  const path = { workspaceId: workspace.id, agentId: agent.id };
  // The Answers tab's form answers the turn ({fromTurn, answer}: the API takes the question from the turn itself);
  // `question` only shows the visitor's words above it.
  const answerLink = (turnId: string, question?: string | null) =>
    href(
      workspace.id,
      `/agents/${encodeURIComponent(agent.id)}/answers?fromTurn=${encodeURIComponent(turnId)}` +
        (question ? `&question=${encodeURIComponent(question.slice(0, 500))}` : ""),
    );
  return (
    <section>
      <h1>Insights</h1>
      <form class="inline" aria-label="Period" onSubmit={(event) => event.preventDefault()}>
        <label>
          Period
          <select name="days" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            {PERIODS.map((n) => (
              <option value={String(n)}>Last {n} days</option>
            ))}
          </select>
        </label>
      </form>
      {!workspace.storeConversations && (
        <div class="empty" data-testid="not-stored">
          <p>
            This workspace does not store conversations: the counts below are kept, but the top questions, the
            unanswered questions and the words of rated turns are not.{" "}
            <a href={href(workspace.id, "/settings")}>Turn on “Store conversations” in the settings</a>.
          </p>
        </div>
      )}
      <Activity path={path} days={days} />
      <Usage path={path} days={days} />
      <Unanswered path={path} answerLink={answerLink} />
      <ThumbsDown path={path} answerLink={answerLink} />
    </section>
  );
}

type AgentPath = { workspaceId: string; agentId: string };

function Activity({ path, days }: { path: AgentPath; days: number }) {
  const loaded = useLoad(
    () => ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/insights", { params: { path, query: { days } } })),
    [path.workspaceId, path.agentId, days],
  );
  const data = loaded.data;
  const dates = data?.days.map((d) => d.date) ?? [];
  const column = (name: Exclude<keyof Schemas["InsightsDay"], "date">) => data?.days.map((d) => d[name]) ?? [];
  return (
    <>
      <h2>Activity per day</h2>
      {loaded.loading && <Loading label="Reading the insights…" />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {data && (
        <>
          <p class="muted" data-testid="insights-totals">
            Over {data.days.length} days: {sum(column("turns"))} turns, {sum(column("up"))} thumbs up, {sum(column("down"))} thumbs down,{" "}
            {sum(column("unanswered"))} unanswered.
          </p>
          <div class="charts">
            <Chart
              id="insights-activity"
              title="Turns, threads and visitors per day"
              days={dates}
              series={[
                { label: "Turns", values: column("turns") },
                { label: "Threads", values: column("threads") },
                { label: "Visitors", values: column("visitors") },
              ]}
            />
            <Chart
              id="insights-ratings"
              title="Thumbs up, thumbs down and unanswered turns per day"
              days={dates}
              series={[
                { label: "Thumbs up", values: column("up") },
                { label: "Thumbs down", values: column("down") },
                { label: "Unanswered", values: column("unanswered") },
              ]}
            />
          </div>
          <TopQuestions questions={data.topQuestions} />
          <TopSources sources={data.topSources} />
        </>
      )}
    </>
  );
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function TopQuestions({ questions }: { questions: Schemas["TopQuestion"][] }) {
  return (
    <>
      <h2>Top questions</h2>
      {questions.length === 0 ? (
        <Empty title="No questions in this period.">
          <p>Questions are grouped here once visitors ask them (in a workspace that stores conversations).</p>
        </Empty>
      ) : (
        <div class="table-wrap">
          <table data-testid="top-questions">
            <caption class="sr-only">The most asked questions, most asked first</caption>
            <thead>
              <tr>
                <th scope="col">Question</th>
                <th scope="col">Asked</th>
                <th scope="col">Answered</th>
                <th scope="col">Last asked</th>
              </tr>
            </thead>
            <tbody>
              {questions.map((q) => (
                <tr>
                  <td>{q.question}</td>
                  <td>{q.count}</td>
                  <td>
                    <span class={"badge " + (q.answered ? "ok" : "bad")}>{q.answered ? "Answered" : "Unanswered"}</span>
                  </td>
                  <td>
                    <time dateTime={q.lastAt}>{when(q.lastAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function TopSources({ sources }: { sources: Schemas["TopSource"][] }) {
  if (sources.length === 0) return null;
  const kind = (s: Schemas["TopSource"]) => (s.answerId ? "your answer" : s.postId ? "post" : s.itemId ? "document" : "site");
  return (
    <>
      <h2>Most used sources</h2>
      <div class="table-wrap">
        <table data-testid="top-sources">
          <caption class="sr-only">The sources replies drew on most, most used first</caption>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Kind</th>
              <th scope="col">Turns</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => (
              <tr>
                <td>{s.name}</td>
                <td>{kind(s)}</td>
                <td>{s.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Usage({ path, days }: { path: AgentPath; days: number }) {
  const loaded = useLoad(
    () => ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/usage", { params: { path, query: { days } } })),
    [path.workspaceId, path.agentId, days],
  );
  const data = loaded.data;
  return (
    <>
      <h2>Usage per day</h2>
      <p class="muted">Over every key: requests, chat turns, the credits they charged, and requests refused by a key's rate limit.</p>
      {loaded.loading && <Loading label="Reading the usage…" />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {data && (
        <Chart
          id="agent-usage"
          title="Requests, chat turns, credits and rate-limited requests per day"
          days={data.days.map((d) => d.date)}
          series={[
            { label: "Requests", values: data.days.map((d) => d.requests) },
            { label: "Chat turns", values: data.days.map((d) => d.chatTurns) },
            { label: "Credits", values: data.days.map((d) => d.credits) },
            { label: "Rate limited", values: data.days.map((d) => d.rateLimited) },
          ]}
        />
      )}
    </>
  );
}

function Unanswered({ path, answerLink }: { path: AgentPath; answerLink: (turnId: string, question?: string | null) => string }) {
  const questions = usePaged(
    (cursor) =>
      ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/unanswered", { params: { path, query: { limit: PAGE, cursor } } })).then(
        (page) => ({ items: page.questions, nextCursor: page.nextCursor }),
      ),
    [path.workspaceId, path.agentId],
  );
  return (
    <section aria-labelledby="unanswered-heading">
      <h2 id="unanswered-heading">Unanswered questions</h2>
      <p class="muted">Turns no passage matched, or whose reply was the fallback, newest first.</p>
      <ErrorBox error={questions.error} onRetry={questions.reload} />
      {questions.loading ? (
        <Loading label="Reading the unanswered questions…" />
      ) : questions.items.length === 0 && !questions.error ? (
        <Empty title="No unanswered question.">
          <p>When a visitor asks something the knowledge does not answer, it shows here with a way to write the answer.</p>
        </Empty>
      ) : (
        <ul class="questions" data-testid="unanswered">
          {questions.items.map((q) => (
            <li data-turn={q.turnId}>
              <p class="question">{q.prompt}</p>
              <p class="row muted">
                <time dateTime={q.createdAt}>{when(q.createdAt)}</time>
                <span>
                  visitor <code class="visitor">{q.client}</code>
                </span>
                <a class="button" href={answerLink(q.turnId, q.prompt)}>
                  Write the answer<span class="sr-only"> to “{q.prompt}”</span>
                </a>
              </p>
            </li>
          ))}
        </ul>
      )}
      <LoadMore paged={questions} label="Load more questions" />
    </section>
  );
}

function ThumbsDown({ path, answerLink }: { path: AgentPath; answerLink: (turnId: string, question?: string | null) => string }) {
  const rated = usePaged(
    (cursor) =>
      ok(() =>
        api.GET("/api/workspaces/{workspaceId}/agents/{agentId}/feedback", { params: { path, query: { rating: "down", limit: PAGE, cursor } } }),
      ).then((page) => ({ items: page.feedback, nextCursor: page.nextCursor })),
    [path.workspaceId, path.agentId],
  );
  return (
    <section aria-labelledby="down-heading">
      <h2 id="down-heading">Thumbs down</h2>
      <p class="muted">Replies visitors rated as not helpful, newest first.</p>
      <ErrorBox error={rated.error} onRetry={rated.reload} />
      {rated.loading ? (
        <Loading label="Reading the ratings…" />
      ) : rated.items.length === 0 && !rated.error ? (
        <Empty title="No thumbs down.">
          <p>When a visitor rates a reply as not helpful, it shows here with their comment.</p>
        </Empty>
      ) : (
        <ul class="questions" data-testid="thumbs-down">
          {rated.items.map((f) => (
            <li data-turn={f.turnId}>
              <p class="question">{f.prompt ?? <span class="muted">(the message is not stored)</span>}</p>
              {f.reply && (
                <p>
                  <span class="who">Reply</span> {f.reply}
                </p>
              )}
              {f.comment && (
                <p>
                  <span class="who">Comment</span> {f.comment}
                </p>
              )}
              {f.sources.length > 0 && (
                <p class="muted">
                  <span class="who">Sources</span> {f.sources.map((s) => s.name).join("; ")}
                </p>
              )}
              <p class="row muted">
                <time dateTime={f.createdAt}>{when(f.createdAt)}</time>
                <span>
                  visitor <code class="visitor">{f.client}</code>
                </span>
                <a class="button" href={answerLink(f.turnId, f.prompt)}>
                  Write the answer<span class="sr-only">{f.prompt ? ` to “${f.prompt}”` : ""}</span>
                </a>
              </p>
            </li>
          ))}
        </ul>
      )}
      <LoadMore paged={rated} label="Load more ratings" />
    </section>
  );
}
