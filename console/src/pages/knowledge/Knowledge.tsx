// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/knowledge/.
export function Knowledge() {
  return (
    <section>
      <h1>Knowledge</h1>
    </section>
  );
}
