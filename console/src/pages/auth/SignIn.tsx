// Sign-in by mail link: the address asks for a link (POST /api/auth/magic-link); the link opens the console with
// ?token=…, which is verified here (POST /api/auth/magic-link/verify sets the session cookie on this origin).
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../../api/client";
import { jwt } from "../../api/session";
import { ErrorBox, Loading, Notice } from "../../ui/Status";

/** Only a path of this console: never an absolute URL a crafted link could send the person to. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function SignIn() {
  const location = useLocation();
  const token = location.query.token;
  const next = safeNext(location.query.next);
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!token) return;
    ok(() => api.POST("/api/auth/magic-link/verify", { body: { token } }))
      .then(() => jwt(true))
      .then(() => location.route(next, true))
      .catch(setError);
  }, [token]);

  if (token && !error) return <Loading label="Signing you in…" />;
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the console</h1>
      {token && error ? (
        <ErrorBox error={error} />
      ) : null}
      {sent ? (
        <Notice>
          A sign-in link is on its way to <strong>{email}</strong>. Open it on this device; it works once, for 15
          minutes.
        </Notice>
      ) : (
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            setBusy(true);
            setError(null);
            try {
              await ok(() => api.POST("/api/auth/magic-link", { body: { email } }));
              setSent(true);
            } catch (e) {
              setError(e);
            } finally {
              setBusy(false);
            }
          }}
        >
          <label>
            Email address
            <input type="email" name="email" autoComplete="email" required value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={busy} aria-busy={busy}>
            {busy ? "Sending…" : "Send me a sign-in link"}
          </button>
          {!token && <ErrorBox error={error} />}
        </form>
      )}
    </main>
  );
}
