// The page an invitation's mail opens (/invitations?token=…). The Shell around it has already made sure the person is
// signed in (a stranger goes to /sign-in and comes back here with the token, see pages/auth/SignIn.tsx); this page
// accepts the invitation (POST /api/invitations/accept) and opens the workspace joined. A link that no longer works,
// or that was sent to another address than the signed-in one, is said so in words with what to do.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { ApiError, api, ok } from "../../api/client";
import { ErrorBox, Loading, Notice } from "../../ui/Status";
import { useLoad } from "../../ui/useLoad";
import { href } from "../../ui/workspace";

type Outcome = { state: "accepting" } | { state: "joined"; id: string; name: string } | { state: "failed"; error: unknown };

export function AcceptInvitation() {
  const location = useLocation();
  const token = location.query.token?.trim();
  const account = useLoad(() => ok(() => api.GET("/api/user/account")), []);
  const [outcome, setOutcome] = useState<Outcome>({ state: "accepting" });
  const started = useRef(false);

  useEffect(() => {
    // Once per page: the token is single use, so a second POST (a re-render) would only find it spent.
    if (!token || started.current) return;
    started.current = true;
    ok(() => api.POST("/api/invitations/accept", { body: { token } })).then(
      ({ workspace }) => {
        setOutcome({ state: "joined", id: workspace.id, name: workspace.name });
        // Straight into the workspace; the token leaves the address bar and the history with this page.
        location.route(href(workspace.id, "/"), true);
      },
      (error: unknown) => setOutcome({ state: "failed", error }),
    );
  }, [token]);

  if (!token)
    return (
      <section>
        <h1>Join a workspace</h1>
        <div class="error" role="alert">
          <p>
            <strong>This link has no invitation in it.</strong>
          </p>
          <p>Open the link from the invitation mail again, whole; if it was cut, ask the person who invited you to send it again.</p>
        </div>
        <p>
          <a href="/">Go to your workspaces</a>
        </p>
      </section>
    );

  return (
    <section>
      <h1>Join a workspace</h1>
      {outcome.state === "accepting" && <Loading label="Accepting the invitation…" />}
      {outcome.state === "joined" && (
        <Notice>
          You joined <strong>{outcome.name}</strong>. <a href={href(outcome.id, "/")}>Open it</a>.
        </Notice>
      )}
      {outcome.state === "failed" && <Refused error={outcome.error} email={account.data?.email} />}
    </section>
  );
}

/** Why the invitation was refused, in words: the API says the same 404 for every dead link (a leak otherwise). */
function Refused({ error, email }: { error: unknown; email: string | undefined }) {
  if (error instanceof ApiError && error.status === 404)
    return (
      <div class="error" role="alert">
        <p>
          <strong>This invitation cannot be accepted.</strong>
        </p>
        <p>
          Either it was sent to another address than the one you are signed in with
          {email ? (
            <>
              {" "}
              (<strong>{email}</strong>)
            </>
          ) : null}
          , or the link was used already, revoked, replaced by a newer invitation, or is more than 7 days old.
        </p>
        <ul>
          <li>If the invitation went to another address, sign out and sign in with that address, then open the link again.</li>
          <li>Otherwise ask the person who invited you for a new invitation.</li>
        </ul>
        <p>
          <a href="/">Go to your workspaces</a>
        </p>
      </div>
    );
  if (error instanceof ApiError && error.status === 409)
    return (
      <div class="error" role="alert">
        <p>
          <strong>You are a member of this workspace already.</strong>
        </p>
        <p>
          Open it from <a href="/">your workspaces</a>.
        </p>
      </div>
    );
  return <ErrorBox error={error} />;
}
