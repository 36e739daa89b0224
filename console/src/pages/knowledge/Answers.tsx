// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/knowledge/.
export function Answers() {
  return (
    <section>
      <h1>Answers</h1>
    </section>
  );
}
