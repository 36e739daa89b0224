// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/conversations/.
export function Conversations() {
  return (
    <section>
      <h1>Conversations</h1>
    </section>
  );
}
