import { useState } from "preact/hooks";

/** A destructive action asks once more in place (no modal: keyboard and screen reader stay where they were). */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: {
  label: string;
  confirm: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirm}>
      <span>{confirm}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        aria-busy={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? "Working…" : "Yes, " + label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Copies `text`; where the browser refuses the clipboard (no permission, an insecure origin) it says so, and the
 * text stays on the page to select by hand. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "refused">("idle");
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setState("copied");
        } catch {
          setState("refused");
        }
        setTimeout(() => setState("idle"), 4000);
      }}
    >
      {state === "copied" ? "Copied" : state === "refused" ? "Copy refused: select it and copy by hand" : label}
      <span class="sr-only" aria-live="polite">
        {state === "copied" ? " to the clipboard" : ""}
      </span>
    </button>
  );
}
