// Who is signed in (GET /api/user/account), and signing out (POST /api/auth/logout ends the session cookie; the
// JWT held in memory is forgotten with it).
import { useLocation } from "preact-iso";
import { api, ok } from "../../api/client";
import { forget } from "../../api/session";
import { ErrorBox, Loading } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";

export function Account() {
  const location = useLocation();
  const account = useLoad(() => ok(() => api.GET("/api/user/account")), []);
  const { busy, error, run } = useAction();
  const me = account.data;

  async function signOut() {
    await run(async () => {
      const response = await fetch("/api/auth/logout", { method: "POST", credentials: "same-origin" });
      if (!response.ok && response.status !== 401) throw new Error(`signing out failed (${response.status})`);
      forget();
      location.route("/sign-in");
    });
  }

  return (
    <section>
      <h1>Your account</h1>
      {account.loading && !me && <Loading />}
      <ErrorBox error={account.error} onRetry={account.reload} />
      {me && (
        <dl class="facts">
          <dt>Email address</dt>
          <dd data-testid="account-email">{me.email}</dd>
          <dt>Name</dt>
          <dd>{me.name || <span class="muted">not set</span>}</dd>
          <dt>Account id</dt>
          <dd><code>{me.id}</code></dd>
          <dt>Signed up</dt>
          <dd><time dateTime={me.createdAt}>{new Date(me.createdAt).toLocaleDateString()}</time></dd>
        </dl>
      )}
      <p>
        <a href="/">Your workspaces</a>
      </p>
      <h2>Sign out</h2>
      <p class="muted">Ends this browser's session. Sign in again with a new link from your email.</p>
      <button type="button" class="primary" onClick={signOut} disabled={busy} aria-busy={busy}>
        {busy ? "Signing out…" : "Sign out of the console"}
      </button>
      <ErrorBox error={error} />
    </section>
  );
}
