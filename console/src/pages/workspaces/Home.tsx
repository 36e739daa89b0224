// The signed-in start page: the person's workspaces, and a new one. A mail link's ?token= lands here (the sign-in
// link is the console's root) and is handed to /sign-in.
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../../api/client";
import { Empty, ErrorBox, Loading } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";

export function Home() {
  const location = useLocation();
  const workspaces = useLoad(() => ok(() => api.GET("/api/workspaces")), []);
  const [name, setName] = useState("");
  const { busy, error, run } = useAction();
  useEffect(() => {
    if (location.query.token) location.route(`/sign-in?token=${encodeURIComponent(location.query.token)}`, true);
  }, []);
  return (
    <section>
      <h1>Your workspaces</h1>
      {workspaces.loading && !workspaces.data && <Loading />}
      <ErrorBox error={workspaces.error} onRetry={workspaces.reload} />
      {workspaces.data?.length === 0 && (
        <Empty title="You have no workspace yet.">
          <p>Create one below: it holds your agents, their documents and the keys your sites use.</p>
        </Empty>
      )}
      <ul class="cards">
        {workspaces.data?.map((w) => (
          <li>
            <a href={`/w/${encodeURIComponent(w.id)}/`}>
              <strong>{w.name}</strong>
            </a>
            <span class="muted">
              {" "}
              {w.role} · {w.memberCount} {w.memberCount === 1 ? "member" : "members"}
            </span>
          </li>
        ))}
      </ul>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          await run(async () => {
            const created = await ok(() => api.POST("/api/workspaces", { body: { name } }));
            location.route(`/w/${encodeURIComponent(created.workspace.id)}/`);
          });
        }}
      >
        <label>
          New workspace
          <input required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? "Creating…" : "Create workspace"}
        </button>
      </form>
      <ErrorBox error={error} />
    </section>
  );
}
