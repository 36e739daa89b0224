// How every page says what is happening: loading, progress, errors (the API's message and what to do), empty states.
import type { ComponentChildren } from "preact";
import { ApiError } from "../api/client";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Progress({ value, max, label }: { value: number; max: number; label: string }) {
  const percent = max > 0 ? Math.round((value / max) * 100) : 0;
  return (
    <div class="progress">
      <label>
        {label} <span class="muted">{percent}%</span>
        <progress value={value} max={max} aria-valuetext={`${percent}%`} />
      </label>
    </div>
  );
}

/** An error as the person can act on it: the API's own message, and the next step when there is one. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  const message = api ? api.message : error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      <p>
        <strong>{api ? message : "Something went wrong: " + message}</strong>
        {api && <span class="muted"> ({api.code})</span>}
      </p>
      {api?.advice && <p>{api.advice}</p>}
      {!api && <p>Check your connection and try again.</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** A notice after a write succeeded, read out by screen readers. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {children}
    </p>
  );
}
