// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/keys/.
export function Keys() {
  return (
    <section>
      <h1>Keys</h1>
    </section>
  );
}
