// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/agents/.
export function Behaviour() {
  return (
    <section>
      <h1>Behaviour</h1>
    </section>
  );
}
