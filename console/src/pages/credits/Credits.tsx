// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/credits/.
export function Credits() {
  return (
    <section>
      <h1>Credits</h1>
    </section>
  );
}
