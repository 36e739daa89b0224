// The signed-in person's credits: the balance (available, held, total, in credits and US cents), the ledger newest
// first with its filter (refType) and offset pages, and the balance at the end of each recent day.
//
// The chart reads no more than one page: the ledger's entries are the only thing that moves the total (a hold moves
// credits from available to held, a settlement writes the charge as an entry, a release writes nothing), so the total
// at the end of a day is today's total minus every entry after that day, and the newest page (200 entries, the API's
// largest) holds every entry after the oldest day it reaches. Days before that page are not drawn, never guessed.
import { useState } from "preact/hooks";
import { api, ok, type Schemas } from "../../api/client";
import { Chart } from "../../ui/Chart";
import { Empty, ErrorBox, Loading } from "../../ui/Status";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { when } from "../conversations/lists";

type RefType = Schemas["CreditLedgerEntry"]["refType"];
type Entry = Schemas["CreditLedgerEntry"];

const REF_TYPES: { value: RefType; label: string }[] = [
  { value: "llm", label: "Chat turns (llm)" },
  { value: "topup", label: "Top-ups (topup)" },
  { value: "refund", label: "Refunds (refund)" },
  { value: "adjustment", label: "Adjustments (adjustment)" },
  { value: "render", label: "Renders (render)" },
  { value: "voice", label: "Voice (voice)" },
];
const PAGE_SIZES = [25, 50, 100, 200];
const CHART_ENTRIES = 200;
const CHART_DAYS = 30;

export function Credits() {
  const { workspace, role } = useWorkspace();
  const balance = useLoad(() => ok(() => api.GET("/api/credits/balance")), []);
  return (
    <section>
      <h1>Credits</h1>
      <p class="muted">
        These are the credits of the account you signed in with.{" "}
        {role === "owner"
          ? `Chat turns in “${workspace.name}” are charged to them.`
          : `Chat turns in “${workspace.name}” are charged to its owner's credits, not to yours.`}
      </p>
      <h2>Balance</h2>
      {balance.loading && !balance.data && <Loading label="Reading the balance…" />}
      <ErrorBox error={balance.error} onRetry={balance.reload} />
      {balance.data && <Balance balance={balance.data} />}
      {balance.data && <BalanceChart total={balance.data.balance.total} />}
      <Ledger />
    </section>
  );
}

function usd(cents: number): string {
  return (cents / 100).toLocaleString(undefined, { style: "currency", currency: "USD" });
}

function Balance({ balance }: { balance: Schemas["CreditBalance"] }) {
  const rows: { key: keyof Schemas["CreditAmounts"]; label: string; help: string }[] = [
    { key: "available", label: "Available", help: "what new turns can spend" },
    { key: "held", label: "Held", help: "set aside for turns under way; charged or returned when they end" },
    { key: "total", label: "Total", help: "available and held together" },
  ];
  return (
    <dl class="balance" data-testid="balance">
      {rows.map((r) => (
        <div data-amount={r.key}>
          <dt>
            {r.label} <span class="muted">({r.help})</span>
          </dt>
          <dd>
            <strong data-credits={balance.balance[r.key]}>{balance.balance[r.key].toLocaleString()} credits</strong>{" "}
            <span class="muted">{usd(balance.usdCents[r.key])}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The UTC day of a stored time (`YYYY-MM-DD`). */
function day(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10);
}

/** The total at the end of each day (UTC) and what the day's charges spent, from the newest page of the ledger: the
 * total at the end of a day is today's total less every entry after that day. The oldest day of a page that is not
 * the whole ledger is left out (its earlier entries are on the next page, so its spending would be partial). */
export function dailyBalance(total: number, entries: Entry[], wholeLedger: boolean, today: string, limit: number) {
  const days: string[] = [];
  const balance: number[] = [];
  const spent: number[] = [];
  if (entries.length === 0) return { days, balance, spent };
  const newest = day(entries[0]!.createdAt);
  const oldest = day(entries[entries.length - 1]!.createdAt);
  const net = new Map<string, number>();
  const charged = new Map<string, number>();
  for (const e of entries) {
    const d = day(e.createdAt);
    net.set(d, (net.get(d) ?? 0) + e.amountCredits);
    if (e.amountCredits < 0) charged.set(d, (charged.get(d) ?? 0) - e.amountCredits);
  }
  let running = total;
  for (let at = Date.parse((newest > today ? newest : today) + "T00:00:00Z"); days.length < limit; at -= 86_400_000) {
    const d = new Date(at).toISOString().slice(0, 10);
    if (d < oldest || (d === oldest && !wholeLedger)) break;
    days.unshift(d);
    balance.unshift(running);
    spent.unshift(charged.get(d) ?? 0);
    running -= net.get(d) ?? 0;
  }
  return { days, balance, spent };
}

function BalanceChart({ total }: { total: number }) {
  const page = useLoad(() => ok(() => api.GET("/api/credits/history", { params: { query: { limit: CHART_ENTRIES, offset: 0 } } })), []);
  if (page.loading && !page.data) return <Loading label="Reading the recent entries…" />;
  if (page.error) return <ErrorBox error={page.error} onRetry={page.reload} />;
  if (!page.data || page.data.entries.length === 0) return null;
  const whole = page.data.total <= page.data.entries.length;
  const today = new Date().toISOString().slice(0, 10);
  const drawn = dailyBalance(total, page.data.entries, whole, today, CHART_DAYS);
  if (drawn.days.length === 0)
    return <p class="muted">No chart yet: the newest {page.data.entries.length} entries are all from one day, which is not whole on this page.</p>;
  return (
    <>
      <Chart
        id="credits-daily"
        title="Total credits at the end of each day (UTC) and credits spent that day"
        days={drawn.days}
        series={[
          { label: "Balance", values: drawn.balance },
          { label: "Spent", values: drawn.spent },
        ]}
      />
      <p class="muted" data-testid="chart-basis">
        Worked back from today's total through the newest {page.data.entries.length} ledger entries
        {whole ? " (the whole ledger)" : ` of ${page.data.total}, from the first day they cover whole`}, at most {CHART_DAYS} days.
      </p>
    </>
  );
}

function Ledger() {
  const [refType, setRefType] = useState<RefType | "">("");
  const [limit, setLimit] = useState(50);
  const [offset, setOffset] = useState(0);
  const page = useLoad(
    () => ok(() => api.GET("/api/credits/history", { params: { query: { limit, offset, refType: refType || undefined } } })),
    [refType, limit, offset],
  );
  const data = page.data;
  const first = data && data.entries.length ? data.offset + 1 : 0;
  const last = data ? data.offset + data.entries.length : 0;
  return (
    <section aria-labelledby="ledger-heading">
      <h2 id="ledger-heading">Ledger</h2>
      <form class="inline" aria-label="Filter the ledger" onSubmit={(event) => event.preventDefault()}>
        <label>
          Kind
          <select
            name="refType"
            value={refType}
            onChange={(e) => {
              setRefType((e.target as HTMLSelectElement).value as RefType | "");
              setOffset(0);
            }}
          >
            <option value="">Every kind</option>
            {REF_TYPES.map((t) => (
              <option value={t.value}>{t.label}</option>
            ))}
          </select>
        </label>
        <label>
          Entries a page
          <select
            name="limit"
            value={String(limit)}
            onChange={(e) => {
              setLimit(Number((e.target as HTMLSelectElement).value));
              setOffset(0);
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option value={String(n)}>{n}</option>
            ))}
          </select>
        </label>
      </form>
      {page.loading && <Loading label="Reading the ledger…" />}
      <ErrorBox error={page.error} onRetry={page.reload} />
      {data && data.entries.length === 0 && !page.loading && (
        <Empty title={refType ? "No entry of this kind." : "No ledger entry yet."}>
          <p>{refType ? "Choose “Every kind” to see every entry." : "Entries appear when credits are added or chat turns are charged."}</p>
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <>
          <p class="muted" data-testid="ledger-range" aria-live="polite">
            Entries {first}–{last} of {data.total}, newest first.
          </p>
          <div class="table-wrap">
            <table data-testid="ledger" aria-busy={page.loading}>
              <caption class="sr-only">Ledger entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Description</th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((e) => (
                  <tr data-entry={e.id}>
                    <td>
                      <time dateTime={e.createdAt}>{when(e.createdAt)}</time>
                    </td>
                    <td data-field="refType">{e.refType}</td>
                    <td data-field="amount" data-credits={e.amountCredits}>
                      {e.amountCredits > 0 ? "+" : e.amountCredits < 0 ? "−" : ""}
                      {Math.abs(e.amountCredits).toLocaleString()}
                    </td>
                    <td>{e.description}</td>
                    <td>
                      <code class="ref">{e.refId}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {data && data.total > 0 && (
        <nav class="row" aria-label="Ledger pages">
          <button type="button" disabled={offset === 0 || page.loading} onClick={() => setOffset(Math.max(0, offset - limit))}>
            Newer entries
          </button>
          <button type="button" disabled={last >= data.total || page.loading} onClick={() => setOffset(offset + limit)}>
            Older entries
          </button>
        </nav>
      )}
    </section>
  );
}
