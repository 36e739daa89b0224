import { useCallback, useState } from "preact/hooks";

export type Action = {
  busy: boolean;
  error: unknown;
  setError: (e: unknown) => void;
  run: <T>(action: () => Promise<T>) => Promise<T | undefined>;
};

/** An action a button starts: busy while it runs, its error kept for ErrorBox; run() answers the action's value, or
 * undefined when it failed (the error is then shown). A new run clears the last error first. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
