// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/audit/.
export function Audit() {
  return (
    <section>
      <h1>Audit</h1>
    </section>
  );
}
