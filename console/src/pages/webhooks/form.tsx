// A webhook's form, to add one or edit one: its URL, the events it receives (all of them, or those ticked) and a
// description. The events are the contract's (authoring.md, "Webhooks") and the extensions the service sends;
// webhook.test is not offered: "Send test" reaches a webhook whatever its events.
import { useState } from "preact/hooks";
import type { Schemas } from "../../api/client";
import { ErrorBox } from "../../ui/Status";
import { useAction } from "../../ui/useAction";

/** An event type the API takes (its enum, so a name it does not know fails `tsc`), or "*": all of them. */
export type EventType = Schemas["WebhookCreate"]["events"][number];

export const ALL_EVENTS: EventType = "*";

/** Each event a webhook may ask for, as a person reads it. */
export const EVENTS: { type: EventType; label: string }[] = [
  { type: "conversation.turn.completed", label: "A visitor's turn is answered" },
  { type: "feedback.created", label: "A visitor rates a reply" },
  { type: "knowledge.item.indexed", label: "A document is read" },
  { type: "knowledge.item.failed", label: "A document cannot be read" },
  { type: "credits.low", label: "Credits fall under the workspace's low-credits threshold" },
  { type: "credits.exhausted", label: "A chat is refused: no credits left" },
  { type: "credits.granted", label: "Credits are added" },
  { type: "member.joined", label: "Someone joins the workspace" },
  { type: "member.removed", label: "Someone leaves or is removed" },
  { type: "agent.deleted", label: "An agent is deleted" },
  { type: "conversation.erased", label: "A visitor's conversations are erased" },
  { type: "conversations.retention.applied", label: "Old conversations are removed (retention)" },
];

export type WebhookInput = { url: string; events: EventType[]; description: string };

let forms = 0; // ids of each form's fields, unique on the page (the add form and an edit form may both be open)

export function WebhookForm({ title, submit, busyLabel, initial, onSave, onCancel }: {
  title: string;
  submit: string;
  busyLabel: string;
  initial?: { url: string; events: EventType[]; description: string };
  onSave: (input: WebhookInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const [id] = useState(() => `webhook-form-${++forms}`);
  const [url, setUrl] = useState(initial?.url ?? "");
  const [all, setAll] = useState(!initial || initial.events.includes(ALL_EVENTS));
  const [chosen, setChosen] = useState<Set<EventType>>(new Set(initial?.events.filter((e) => e !== ALL_EVENTS) ?? []));
  const [description, setDescription] = useState(initial?.description ?? "");
  const [unchosen, setUnchosen] = useState(false);
  const { busy, error, run } = useAction();

  return (
    <form
      class="mint"
      aria-labelledby={`${id}-title`}
      onSubmit={async (event) => {
        event.preventDefault();
        const events = all ? [ALL_EVENTS] : EVENTS.map((e) => e.type).filter((t) => chosen.has(t));
        setUnchosen(events.length === 0);
        if (events.length === 0) return;
        await run(async () => {
          await onSave({ url: url.trim(), events, description: description.trim() });
          if (!initial) {
            setUrl("");
            setAll(true);
            setChosen(new Set());
            setDescription("");
          }
        });
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <label>
        URL
        <input type="url" required maxLength={2048} value={url} placeholder="https://example.com/hooks/workspace"
          aria-describedby={`${id}-url-hint`} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      </label>
      <p id={`${id}-url-hint`} class="hint muted">
        An <code>https://</code> address of your system, reachable from the internet (private and local addresses are
        refused).
      </p>
      <fieldset aria-describedby={unchosen ? `${id}-events-error` : undefined}>
        <legend>Events</legend>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(e) => setAll((e.target as HTMLInputElement).checked)} />
          All events, including those added later
        </label>
        {!all && (
          <ul class="plain indent">
            {EVENTS.map((event) => (
              <li>
                <label class="check">
                  <input
                    type="checkbox"
                    value={event.type}
                    checked={chosen.has(event.type)}
                    onChange={(e) => {
                      const next = new Set(chosen);
                      if ((e.target as HTMLInputElement).checked) next.add(event.type);
                      else next.delete(event.type);
                      setChosen(next);
                    }}
                  />
                  {event.label} <code class="small">{event.type}</code>
                </label>
              </li>
            ))}
          </ul>
        )}
        {unchosen && (
          <p id={`${id}-events-error`} class="error" role="alert">
            Choose at least one event, or all events.
          </p>
        )}
      </fieldset>
      <label>
        Description <span class="muted">(optional)</span>
        <input maxLength={200} value={description} placeholder="CRM" onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
      </label>
      <div class="row">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? busyLabel : submit}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <ErrorBox error={error} />
    </form>
  );
}
