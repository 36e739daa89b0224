// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/workspaces/.
export function Settings() {
  return (
    <section>
      <h1>Settings</h1>
    </section>
  );
}
