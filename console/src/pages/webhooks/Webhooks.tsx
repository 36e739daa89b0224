// A workspace's webhooks (events POSTed to the owner's systems, signed as Standard Webhooks describe): the list, adding
// one (URL, events, description) with its signing secret shown once, enabling and disabling, editing, deleting in two
// steps, rotating the secret (the new one shown once; both sign for 24 hours), sending a test event, and each
// webhook's deliveries (by status, "Load more") with a failed one sent again. Webhooks are the owner's and admins'
// (the API answers a member 403), so a member is told so and shown no control.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ok, type Schemas } from "../../api/client";
import { ConfirmButton, CopyButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { LoadMore, usePaged } from "../conversations/lists";
import { when } from "../members/people";
import { type EventType, WebhookForm } from "./form";

type Webhook = Schemas["Webhook"];
type Delivery = Schemas["Delivery"];
type Status = Delivery["status"];

/** A secret in the answer that made it, held in this page's memory only (never stored), until the person hides it. */
type Shown = { secret: string; url: string; rotated: boolean };

const ALL = "*";
const MAX_WEBHOOKS = 10;
const PAGE = 20;

export function Webhooks() {
  const { workspace, canWrite } = useWorkspace();
  if (!canWrite)
    return (
      <section>
        <h1>Webhooks</h1>
        <Empty title="Webhooks are run by the workspace's owner and admins.">
          <p>They send what happens in this workspace to other systems; ask an owner or admin to set one up.</p>
        </Empty>
      </section>
    );
  return <WebhooksOf workspaceId={workspace.id} />;
}

function WebhooksOf({ workspaceId }: { workspaceId: string }) {
  const webhooks = useLoad(
    () => ok(() => api.GET("/api/workspaces/{workspaceId}/webhooks", { params: { path: { workspaceId } } })).then((w) => w.webhooks),
    [workspaceId],
  );
  const [shown, setShown] = useState<Shown | null>(null);
  const [notice, setNotice] = useState("");
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [deliveriesOf, setDeliveriesOf] = useState<Webhook | null>(null);
  const [testedAt, setTestedAt] = useState(0);
  const action = useAction();
  const full = (webhooks.data?.length ?? 0) >= MAX_WEBHOOKS;

  function path(webhook: Webhook) {
    return { workspaceId, webhookId: webhook.id };
  }

  async function write(message: string, call: () => Promise<unknown>) {
    setNotice("");
    const done = await action.run(async () => {
      await call();
      return true;
    });
    if (done) setNotice(message);
    await webhooks.reload();
  }

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="muted">
        A webhook sends what happens in this workspace (a conversation, a rating, a document read or failed, credits
        running low, a member joining) to a URL of yours, as it happens. Each request is signed with the webhook's
        secret (Standard Webhooks), so your system can check it came from here.
      </p>
      {shown && <ShownSecret shown={shown} onDone={() => setShown(null)} />}
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={action.error} />

      {full ? (
        <p class="muted">This workspace has {MAX_WEBHOOKS} webhooks, the most it may have: delete one to add another.</p>
      ) : (
        <WebhookForm
          title="Add a webhook"
          submit="Add webhook"
          busyLabel="Adding…"
          onSave={async (input) => {
            const created = await ok(() =>
              api.POST("/api/workspaces/{workspaceId}/webhooks", { params: { path: { workspaceId } }, body: input }),
            );
            setNotice("");
            setShown({ secret: created.secret, url: created.webhook.url, rotated: false });
            await webhooks.reload();
          }}
        />
      )}

      <h2>Webhooks of this workspace</h2>
      {webhooks.loading && !webhooks.data && <Loading label="Loading webhooks…" />}
      <ErrorBox error={webhooks.error} onRetry={webhooks.reload} />
      {webhooks.data?.length === 0 && (
        <Empty title="This workspace has no webhook yet.">
          <p>Add one above with the URL your system receives events on.</p>
        </Empty>
      )}
      {webhooks.data && webhooks.data.length > 0 && (
        <div class="table-wrap">
          <table class="webhooks">
            <caption class="sr-only">Webhooks of this workspace</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col" class="wide-only">Events</th>
                <th scope="col" class="wide-only">Description</th>
                <th scope="col">Status</th>
                <th scope="col" class="wide-only">Added</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((webhook) => (
                <tr data-webhook-id={webhook.id} aria-current={deliveriesOf?.id === webhook.id ? "true" : undefined}>
                  <th scope="row">
                    <code>{webhook.url}</code>
                  </th>
                  <td class="wide-only">{eventsText(webhook.events)}</td>
                  <td class="wide-only">{webhook.description || <span class="muted">None</span>}</td>
                  <td>
                    <StatusBadge webhook={webhook} />
                  </td>
                  <td class="wide-only">{when(webhook.createdAt)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      aria-label={`${webhook.enabled ? "Disable" : "Enable"} ${webhook.url}`}
                      disabled={action.busy}
                      onClick={() =>
                        write(webhook.enabled ? `${webhook.url} is disabled: nothing is sent to it until it is enabled.` : `${webhook.url} is enabled.`, () =>
                          ok(() =>
                            api.PATCH("/api/workspaces/{workspaceId}/webhooks/{webhookId}", {
                              params: { path: path(webhook) },
                              body: { enabled: !webhook.enabled },
                            }),
                          ),
                        )
                      }
                    >
                      {webhook.enabled ? "Disable" : "Enable"}
                    </button>
                    <button
                      type="button"
                      aria-label={`Edit ${webhook.url}`}
                      aria-pressed={editing?.id === webhook.id}
                      onClick={() => setEditing(editing?.id === webhook.id ? null : webhook)}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Send test to ${webhook.url}`}
                      disabled={action.busy || !webhook.enabled}
                      onClick={async () => {
                        await write(`A webhook.test event is on its way to ${webhook.url}: its delivery is listed below.`, () =>
                          ok(() =>
                            api.POST("/api/workspaces/{workspaceId}/webhooks/{webhookId}/test", {
                              params: { path: path(webhook) },
                            }),
                          ),
                        );
                        setDeliveriesOf(webhook);
                        setTestedAt(Date.now());
                      }}
                    >
                      Send test
                    </button>
                    <button
                      type="button"
                      aria-label={`Deliveries of ${webhook.url}`}
                      aria-pressed={deliveriesOf?.id === webhook.id}
                      onClick={() => setDeliveriesOf(deliveriesOf?.id === webhook.id ? null : webhook)}
                    >
                      Deliveries
                    </button>
                    <ConfirmButton
                      label="Rotate secret"
                      confirm={`Make a new secret for ${webhook.url}? The current one keeps signing for 24 hours only.`}
                      onConfirm={async () => {
                        setNotice("");
                        const rotated = await action.run(() =>
                          ok(() =>
                            api.POST("/api/workspaces/{workspaceId}/webhooks/{webhookId}/rotate", {
                              params: { path: path(webhook) },
                            }),
                          ),
                        );
                        if (rotated) setShown({ secret: rotated.secret, url: webhook.url, rotated: true });
                      }}
                    />
                    <ConfirmButton
                      label="Delete"
                      confirm={`Delete the webhook to ${webhook.url}? Nothing more is sent to it, and its deliveries are no longer listed.`}
                      onConfirm={async () => {
                        if (editing?.id === webhook.id) setEditing(null);
                        if (deliveriesOf?.id === webhook.id) setDeliveriesOf(null);
                        await write(`The webhook to ${webhook.url} is deleted.`, () =>
                          ok(() =>
                            api.DELETE("/api/workspaces/{workspaceId}/webhooks/{webhookId}", {
                              params: { path: path(webhook) },
                            }),
                          ),
                        );
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <WebhookForm
          key={editing.id}
          title={`Edit the webhook to ${editing.url}`}
          submit="Save changes"
          busyLabel="Saving…"
          initial={{ url: editing.url, events: editing.events as EventType[], description: editing.description ?? "" }}
          onCancel={() => setEditing(null)}
          onSave={async (input) => {
            await ok(() =>
              api.PATCH("/api/workspaces/{workspaceId}/webhooks/{webhookId}", { params: { path: path(editing) }, body: input }),
            );
            setEditing(null);
            setNotice(`The webhook to ${input.url} is saved.`);
            await webhooks.reload();
          }}
        />
      )}
      {deliveriesOf && (
        <Deliveries
          key={deliveriesOf.id}
          workspaceId={workspaceId}
          webhook={webhooks.data?.find((w) => w.id === deliveriesOf.id) ?? deliveriesOf}
          refreshed={testedAt}
        />
      )}
    </section>
  );
}

function eventsText(events: readonly string[]): string {
  if (events.includes(ALL)) return "All events";
  return events.join(", ");
}

function StatusBadge({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return <span class="badge ok">Enabled</span>;
  const why =
    webhook.disabledReason === "gone"
      ? "the receiver answered 410 Gone"
      : webhook.disabledReason === "failing"
        ? "eight days of failed deliveries"
        : "by a person";
  return (
    <span class="badge bad" title={`Disabled: ${why}`}>
      Disabled{webhook.disabledReason ? ` (${why})` : ""}
    </span>
  );
}

/** The signing secret, in this answer only: the page says plainly it will not come back. */
function ShownSecret({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [shown.secret]);
  return (
    <section class="minted" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={heading} tabIndex={-1}>
        {shown.rotated ? "The new signing secret of " : "The signing secret of "}
        <code>{shown.url}</code>
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Your system checks each request's signature with it.
        {shown.rotated
          ? " The old and the new secret both sign every request for the next 24 hours: move your system to the new one before then."
          : " If it is lost, rotate the secret to get a new one."}
      </p>
      <p class="secret" data-testid="webhook-secret">
        {shown.secret}
      </p>
      <div class="row">
        <CopyButton text={shown.secret} label="Copy the secret" />
        <button type="button" onClick={onDone}>
          I have stored it, hide it
        </button>
      </div>
    </section>
  );
}

const STATUSES: { value: Status | ""; label: string }[] = [
  { value: "", label: "All deliveries" },
  { value: "failed", label: "Failed" },
  { value: "pending", label: "Pending" },
  { value: "delivered", label: "Delivered" },
];

function Deliveries({ workspaceId, webhook, refreshed }: { workspaceId: string; webhook: Webhook; refreshed: number }) {
  const [status, setStatus] = useState<Status | "">("");
  const [notice, setNotice] = useState("");
  const retry = useAction();
  const deliveries = usePaged<Delivery>(
    (cursor) =>
      ok(() =>
        api.GET("/api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries", {
          params: {
            path: { workspaceId, webhookId: webhook.id },
            query: { limit: PAGE, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
          },
        }),
      ).then((page) => ({ items: page.deliveries, nextCursor: page.nextCursor ?? null })),
    [workspaceId, webhook.id, status, refreshed],
  );
  const empty = STATUSES.find((s) => s.value === status)?.label.toLowerCase() ?? "deliveries";
  return (
    <section class="usage" aria-labelledby="deliveries-title" aria-busy={deliveries.loading}>
      <h2 id="deliveries-title">
        Deliveries to <code>{webhook.url}</code>
      </h2>
      <p class="muted">
        Newest first, kept 30 days. A request that fails is tried again after 5 s, 5 min, 30 min, 2, 5, 10 and 10 hours,
        then the delivery is failed; Retry sends it again now.
      </p>
      {!webhook.enabled && <p class="muted">The webhook is disabled: enable it to retry a delivery.</p>}
      <div class="row">
        <label class="inline-select">
          Show
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as Status | "")}>
            {STATUSES.map((s) => (
              <option value={s.value}>{s.label}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={deliveries.reload} disabled={deliveries.loading}>
          Refresh
        </button>
      </div>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={retry.error} />
      {deliveries.loading && <Loading label="Loading deliveries…" />}
      <ErrorBox error={deliveries.error} onRetry={deliveries.reload} />
      {!deliveries.loading && !deliveries.error && deliveries.items.length === 0 && (
        <Empty title={status ? `No ${empty} delivery.` : "No delivery yet."}>
          <p>Send a test event to see one here.</p>
        </Empty>
      )}
      {deliveries.items.length > 0 && (
        <div class="table-wrap">
          <table class="deliveries">
            <caption class="sr-only">Deliveries to {webhook.url}</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col" class="wide-only">Last answer</th>
                <th scope="col" class="wide-only">Next attempt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.items.map((delivery) => (
                <tr data-delivery-id={delivery.id}>
                  <th scope="row">
                    <code>{delivery.type}</code>
                  </th>
                  <td>{when(delivery.createdAt)}</td>
                  <td>
                    <span class={delivery.status === "delivered" ? "badge ok" : delivery.status === "failed" ? "badge bad" : "badge"}>
                      {delivery.status}
                    </span>
                  </td>
                  <td>{delivery.attempts}</td>
                  <td class="wide-only">
                    {delivery.lastStatus != null && <span>HTTP {delivery.lastStatus} </span>}
                    {delivery.lastError && <span class="muted">{delivery.lastError}</span>}
                    {delivery.lastStatus == null && !delivery.lastError && <span class="muted">None yet</span>}
                  </td>
                  <td class="wide-only">{delivery.nextAttemptAt ? when(delivery.nextAttemptAt) : <span class="muted">None</span>}</td>
                  <td class="actions">
                    {delivery.status !== "delivered" && webhook.enabled && (
                      <button
                        type="button"
                        aria-label={`Retry the ${delivery.type} delivery of ${when(delivery.createdAt)}`}
                        disabled={retry.busy}
                        aria-busy={retry.busy}
                        onClick={async () => {
                          setNotice("");
                          const done = await retry.run(async () => {
                            await ok(() =>
                              api.POST("/api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/retry", {
                                params: { path: { workspaceId, webhookId: webhook.id, deliveryId: delivery.id } },
                              }),
                            );
                            return true;
                          });
                          if (done) {
                            setNotice(`The ${delivery.type} delivery is being sent again.`);
                            deliveries.reload();
                          }
                        }}
                      >
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore paged={deliveries} label="Load more deliveries" />
    </section>
  );
}
