import { useCallback, useEffect, useState } from "preact/hooks";

export type Loaded<T> = { data: T | undefined; error: unknown; loading: boolean; reload: () => Promise<void> };

/** Load once per change of `deps` (and on `reload()`); the last answer wins when loads overlap. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    run().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => current && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [run, generation]);
  const reload = useCallback(async () => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}
