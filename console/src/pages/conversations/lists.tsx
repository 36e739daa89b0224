// What the conversations, insights and credits pages share: one page of a cursor listing with "Load more", and times
// in the reader's own zone.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export type Page<T> = { items: T[]; nextCursor: string | null };

export type Paged<T> = {
  items: T[];
  nextCursor: string | null;
  /** The first page is being read (after a change of `deps` or `reload`). */
  loading: boolean;
  /** A further page is being read. */
  loadingMore: boolean;
  error: unknown;
  loadMore: () => void;
  reload: () => void;
};

/** The first page of a listing, and the next one each time the person asks ("Load more"): never every page on load.
 * An answer to an older request (filters changed meanwhile) is dropped. */
export function usePaged<T>(load: (cursor: string | undefined) => Promise<Page<T>>, deps: unknown[]): Paged<T> {
  const [state, setState] = useState<{ items: T[]; nextCursor: string | null; loading: boolean; loadingMore: boolean; error: unknown }>({
    items: [],
    nextCursor: null,
    loading: true,
    loadingMore: false,
    error: undefined,
  });
  const generation = useRef(0);
  const [reloads, setReloads] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const read = useCallback(load, deps);
  useEffect(() => {
    const mine = ++generation.current;
    setState({ items: [], nextCursor: null, loading: true, loadingMore: false, error: undefined });
    read(undefined).then(
      (page) => mine === generation.current && setState({ ...page, loading: false, loadingMore: false, error: undefined }),
      (error: unknown) => mine === generation.current && setState((s) => ({ ...s, loading: false, error })),
    );
  }, [read, reloads]);
  const current = useRef(state);
  current.current = state;
  const loadMore = useCallback(() => {
    const mine = generation.current;
    const { nextCursor, loadingMore } = current.current;
    if (!nextCursor || loadingMore) return;
    setState((s) => ({ ...s, loadingMore: true, error: undefined }));
    read(nextCursor).then(
      (page) =>
        mine === generation.current &&
        setState((now) => ({ ...now, items: [...now.items, ...page.items], nextCursor: page.nextCursor, loadingMore: false })),
      (error: unknown) => mine === generation.current && setState((now) => ({ ...now, loadingMore: false, error })),
    );
  }, [read]);
  const reload = useCallback(() => setReloads((n) => n + 1), []);
  return { ...state, loadMore, reload };
}

/** A stored time (RFC 3339, UTC) as the reader's clock shows it; the exact value stays in `<time datetime>`. */
export function when(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** An `<input type="datetime-local">` value (the reader's zone) as the API's RFC 3339 UTC time, or undefined. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** "Load more" under a listing while the API has a next page; says so while it reads. */
export function LoadMore<T>({ paged, label = "Load more" }: { paged: Paged<T>; label?: string }) {
  if (!paged.nextCursor) return null;
  return (
    <p>
      <button type="button" class="secondary" onClick={paged.loadMore} disabled={paged.loadingMore} aria-busy={paged.loadingMore}>
        {paged.loadingMore ? "Loading…" : label}
      </button>
    </p>
  );
}
