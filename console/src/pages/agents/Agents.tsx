// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/agents/.
export function Agents() {
  return (
    <section>
      <h1>Agents</h1>
    </section>
  );
}
