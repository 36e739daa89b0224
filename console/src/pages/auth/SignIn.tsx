// Sign-in by mail link: the address asks for a link (POST /api/auth/magic-link); the link opens the console with
// ?token=…, which is verified here (POST /api/auth/magic-link/verify sets the session cookie on this origin).
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../../api/client";
import { jwt } from "../../api/session";
import { ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";

/** Only a path of this console: never an absolute URL a crafted link could send the person to. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

// Where a sign-in started, kept across the mail round trip: the sign-in link opens `/?token=…` (it carries no `next`),
// often in another tab, so the page the person was sent here from (an invitation's /invitations?token=…) is
// remembered on this device when the link is asked for, and read back (and forgotten) when the link is verified.
const NEXT_KEY = "console.signIn.next";

function remember(next: string): void {
  try {
    if (next === "/") localStorage.removeItem(NEXT_KEY);
    else localStorage.setItem(NEXT_KEY, next);
  } catch {
    // Storage refused (a private window's quota): the person lands on their workspaces instead.
  }
}

function recall(): string | undefined {
  try {
    const next = localStorage.getItem(NEXT_KEY) ?? undefined;
    localStorage.removeItem(NEXT_KEY);
    return next;
  } catch {
    return undefined;
  }
}

export function SignIn() {
  const location = useLocation();
  const token = location.query.token;
  const next = safeNext(location.query.next);
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  // The link asked for and the link verified share one error: the page shows it where the person is.
  const { busy, error, setError, run } = useAction();

  useEffect(() => {
    if (!token) return;
    ok(() => api.POST("/api/auth/magic-link/verify", { body: { token } }))
      .then(() => jwt(true))
      .then(() => {
        const remembered = recall();
        location.route(location.query.next ? next : safeNext(remembered), true);
      })
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
            await run(async () => {
              await ok(() => api.POST("/api/auth/magic-link", { body: { email } }));
              remember(next);
              setSent(true);
            });
          }}
        >
          {next.startsWith("/invitations") && (
            <p>Sign in with the address the invitation was sent to; you will join the workspace right after.</p>
          )}
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
