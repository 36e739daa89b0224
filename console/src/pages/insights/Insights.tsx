// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/insights/.
export function Insights() {
  return (
    <section>
      <h1>Insights</h1>
    </section>
  );
}
