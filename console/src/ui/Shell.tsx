// The frame of every signed-in page: a skip link, the header (workspace switcher, account, sign out) and <main>.
// Without a session it sends the person to /sign-in, carrying where they were going (and a mail link's token).
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../api/client";
import { forget, jwt } from "../api/session";
import { Loading } from "./Status";
import { useLoad } from "./useLoad";

export function Shell({ children, workspaceId, nav }: {
  children: ComponentChildren;
  workspaceId?: string;
  nav?: ComponentChildren;
}) {
  const location = useLocation();
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  useEffect(() => {
    jwt().then((token) => {
      if (token) return setSignedIn(true);
      // A mail link (`/?token=…`) opened without a session: its token is for the sign-in page to verify, not a
      // place to come back to (carried inside `next`, it was never verified and the person saw the form again).
      const link = location.path === "/" ? location.query.token : undefined; // /invitations?token= is another
      if (link) return location.route(`/sign-in?token=${encodeURIComponent(link)}`, true);
      location.route(`/sign-in?next=${encodeURIComponent(location.url)}`, true);
    });
  }, []);
  if (!signedIn) return <Loading label="Signing in…" />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Console
        </a>
        <WorkspaceSwitcher current={workspaceId} />
        <nav aria-label="Account" class="account">
          <a href="/account">Account</a>
          <SignOut />
        </nav>
      </header>
      <div class="frame">
        {nav}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </>
  );
}

function WorkspaceSwitcher({ current }: { current?: string }) {
  const location = useLocation();
  const workspaces = useLoad(() => ok(() => api.GET("/api/workspaces")), []);
  if (!workspaces.data) return <span class="switcher muted">{workspaces.error ? "Workspaces unavailable" : ""}</span>;
  return (
    <label class="switcher">
      <span class="sr-only">Workspace</span>
      <select
        value={current ?? ""}
        onChange={(event) => {
          const id = (event.target as HTMLSelectElement).value;
          location.route(id ? `/w/${encodeURIComponent(id)}/` : "/");
        }}
      >
        <option value="">All workspaces</option>
        {workspaces.data.map((w) => (
          <option value={w.id}>{w.name}</option>
        ))}
      </select>
    </label>
  );
}

function SignOut() {
  const location = useLocation();
  return (
    <button
      type="button"
      class="link"
      onClick={async () => {
        await fetch("/api/auth/logout", { method: "POST", credentials: "same-origin" });
        forget();
        location.route("/sign-in");
      }}
    >
      Sign out
    </button>
  );
}
