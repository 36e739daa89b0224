// A workspace's keys (the read plane's credentials): the list, minting one (name, allowed origins, rate limit) with
// its raw key shown once, each key's usage per day as a chart, and revoking. A member reads the list; minting,
// revoking and usage are the owner's and admins' (the API refuses them anyway: 403).
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, everyListed, ok, type Schemas } from "../../api/client";
import { ConfirmButton, CopyButton } from "../../ui/Buttons";
import { Chart } from "../../ui/Chart";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { loadPeople, personName, when } from "../members/people";

type Key = Schemas["ApiKey"];
type Minted = Schemas["MintedApiKey"];

/** Origins as typed: one a line (or separated by commas or spaces); none means any origin. */
function parseOrigins(text: string): string[] | null {
  const origins = text
    .split(/[\s,]+/)
    .map((o) => o.trim().replace(/\/+$/, ""))
    .filter(Boolean);
  return origins.length ? origins : null;
}

export function Keys() {
  const { workspace, canWrite, canReadPrivate } = useWorkspace();
  const workspaceId = workspace.id;
  const keys = useLoad(
    () => everyListed((cursor) => api.GET("/api/workspaces/{workspaceId}/keys", { params: { path: { workspaceId }, query: { cursor } } }), (k) => k.keys),
    [workspaceId],
  );
  // Who minted each key, by name (the API gives a user id); a failure here only leaves the names out.
  const people = useLoad(() => loadPeople(workspaceId).catch(() => undefined), [workspaceId]);
  const [minted, setMinted] = useState<Minted | null>(null);
  const [notice, setNotice] = useState("");
  const revoke = useAction();
  const [usageOf, setUsageOf] = useState<Key | null>(null);

  return (
    <section>
      <h1>Keys</h1>
      <p class="muted">
        A key lets a website, an app or a server read this workspace's published agents and chat with them (the read
        plane). Give each site its own key, limited to its origins and to the requests it needs.
      </p>
      {minted && <MintedKey minted={minted} onDone={() => setMinted(null)} />}
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={revoke.error} />
      {canWrite && (
        <MintForm
          workspaceId={workspaceId}
          onMinted={async (key) => {
            setNotice("");
            setMinted(key);
            await keys.reload();
          }}
        />
      )}

      <h2>Keys of this workspace</h2>
      {keys.loading && !keys.data && <Loading label="Loading keys…" />}
      <ErrorBox error={keys.error} onRetry={keys.reload} />
      {keys.data?.length === 0 && (
        <Empty title="This workspace has no key yet.">
          <p>
            {canWrite
              ? "Mint one above for each site or server that shows your agents."
              : "An owner or admin of this workspace can mint one."}
          </p>
        </Empty>
      )}
      {keys.data && keys.data.length > 0 && (
        <div class="table-wrap">
          <table class="keys">
            <caption class="sr-only">Keys of this workspace</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Rate limit</th>
                <th scope="col">Last used</th>
                <th scope="col">Minted</th>
                <th scope="col">Status</th>
                {(canWrite || canReadPrivate) && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr data-key-id={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    {key.allowedOrigins ? (
                      <ul class="plain">
                        {key.allowedOrigins.map((o) => (
                          <li>
                            <code>{o}</code>
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span class="muted">Any origin</span>
                    )}
                  </td>
                  <td>{key.rateLimit.toLocaleString()} a minute</td>
                  <td>{when(key.lastUsedAt)}</td>
                  <td>
                    {when(key.createdAt)}
                    {key.createdBy && <span class="muted"> by {personName(people.data, key.createdBy)}</span>}
                  </td>
                  <td>
                    {key.revokedAt ? (
                      <span class="badge bad">Revoked {when(key.revokedAt)}</span>
                    ) : (
                      <span class="badge ok">Active</span>
                    )}
                  </td>
                  {(canWrite || canReadPrivate) && (
                    <td class="actions">
                      {canReadPrivate && (
                        <button
                          type="button"
                          aria-pressed={usageOf?.id === key.id}
                          aria-label={`Usage of ${key.name}`}
                          onClick={() => setUsageOf(usageOf?.id === key.id ? null : key)}
                        >
                          Usage
                        </button>
                      )}
                      {canWrite && !key.revokedAt && (
                        <ConfirmButton
                          label="Revoke"
                          confirm={`Revoke “${key.name}”? Every site using it stops working at once.`}
                          onConfirm={() => {
                            setNotice("");
                            return revoke.run(async () => {
                              await ok(() =>
                                api.DELETE("/api/workspaces/{workspaceId}/keys/{keyId}", {
                                  params: { path: { workspaceId, keyId: key.id } },
                                }),
                              );
                              setNotice(`The key “${key.name}” is revoked: requests with it are refused from now on.`);
                              await keys.reload();
                            });
                          }}
                        />
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {usageOf && canReadPrivate && <KeyUsage workspaceId={workspaceId} apiKey={usageOf} />}
    </section>
  );
}

function MintForm({ workspaceId, onMinted }: { workspaceId: string; onMinted: (key: Minted) => Promise<void> }) {
  const [name, setName] = useState("");
  const [origins, setOrigins] = useState("");
  const [rateLimit, setRateLimit] = useState("");
  const { busy, error, run } = useAction();
  return (
    <form
      class="mint"
      aria-labelledby="mint-title"
      onSubmit={async (event) => {
        event.preventDefault();
        await run(async () => {
          const { key } = await ok(() =>
            api.POST("/api/workspaces/{workspaceId}/keys", {
              params: { path: { workspaceId } },
              body: {
                name: name.trim(),
                allowedOrigins: parseOrigins(origins),
                rateLimit: rateLimit.trim() ? Number(rateLimit) : null,
              },
            }),
          );
          setName("");
          setOrigins("");
          setRateLimit("");
          await onMinted(key);
        });
      }}
    >
      <h2 id="mint-title">Mint a key</h2>
      <label>
        Name
        <input required maxLength={64} value={name} placeholder="website" aria-describedby="mint-name-hint"
          onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <p id="mint-name-hint" class="hint muted">Where it will be used, for you to recognise it later.</p>
      <label>
        Allowed origins <span class="muted">(optional)</span>
        <textarea rows={3} value={origins} placeholder="https://www.example.com" aria-describedby="mint-origins-hint"
          onInput={(e) => setOrigins((e.target as HTMLTextAreaElement).value)} />
      </label>
      <p id="mint-origins-hint" class="hint muted">
        One a line, as <code>https://www.example.com</code>: browsers on other sites are refused. Leave it empty for a
        key used by a server, which sends no origin.
      </p>
      <label>
        Rate limit, requests a minute <span class="muted">(optional)</span>
        <input type="number" min={1} max={100000} step={1} inputMode="numeric" value={rateLimit} placeholder="600"
          aria-describedby="mint-rate-hint" onInput={(e) => setRateLimit((e.target as HTMLInputElement).value)} />
      </label>
      <p id="mint-rate-hint" class="hint muted">Empty: 600 a minute. A key in a web page should get what the page needs.</p>
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? "Minting…" : "Mint key"}
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

/** The raw key, in this answer only: the service keeps its hash, so the page says plainly it will not come back. */
function MintedKey({ minted, onDone }: { minted: Minted; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [minted.id]);
  return (
    <section class="minted" aria-labelledby="minted-title">
      <h2 id="minted-title" ref={heading} tabIndex={-1}>
        Your new key “{minted.name}”
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> The service keeps only a fingerprint of it, so nobody
        can show it to you later. If it is lost, mint another and revoke this one.
      </p>
      <p class="secret" data-testid="raw-key">
        {minted.key}
      </p>
      <div class="row">
        <CopyButton text={minted.key} label="Copy the key" />
        <button type="button" onClick={onDone}>
          I have stored it, hide it
        </button>
      </div>
    </section>
  );
}

const DAY_CHOICES = [7, 30, 90];

function KeyUsage({ workspaceId, apiKey }: { workspaceId: string; apiKey: Key }) {
  const [days, setDays] = useState(30);
  const usage = useLoad(
    () =>
      ok(() =>
        api.GET("/api/workspaces/{workspaceId}/keys/{keyId}/usage", {
          params: { path: { workspaceId, keyId: apiKey.id }, query: { days } },
        }),
      ).then((u) => u.days),
    [workspaceId, apiKey.id, days],
  );
  // One array per answer (the chart redraws when these change, not at every render).
  const chart = useMemo(() => {
    const rows = usage.data ?? [];
    return {
      days: rows.map((d) => d.date),
      requests: [
        { label: "Requests", values: rows.map((d) => d.requests) },
        { label: "Refused (rate limit)", values: rows.map((d) => d.rateLimited) },
      ],
      chat: [
        { label: "Chat turns", values: rows.map((d) => d.chatTurns) },
        { label: "Credits", values: rows.map((d) => d.credits) },
      ],
      totals: rows.reduce(
        (t, d) => ({ requests: t.requests + d.requests, chatTurns: t.chatTurns + d.chatTurns, credits: t.credits + d.credits }),
        { requests: 0, chatTurns: 0, credits: 0 },
      ),
    };
  }, [usage.data]);
  return (
    <section class="usage" aria-labelledby="usage-title" aria-busy={usage.loading}>
      <h2 id="usage-title">Usage of “{apiKey.name}”</h2>
      <label class="inline-select">
        Period
        <select value={days} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
          {DAY_CHOICES.map((n) => (
            <option value={n}>Last {n} days</option>
          ))}
        </select>
      </label>
      {usage.loading && <Loading label="Loading usage…" />}
      <ErrorBox error={usage.error} onRetry={usage.reload} />
      {usage.data && (
        <>
          <p>
            {chart.totals.requests.toLocaleString()} requests, {chart.totals.chatTurns.toLocaleString()} chat turns and{" "}
            {chart.totals.credits.toLocaleString()} credits in the last {days} days (UTC days).
          </p>
          <Chart id="key-requests" title={`Requests a day with “${apiKey.name}”`} days={chart.days} series={chart.requests} />
          <Chart id="key-chat" title={`Chat turns and credits a day with “${apiKey.name}”`} days={chart.days} series={chart.chat} />
        </>
      )}
    </section>
  );
}
