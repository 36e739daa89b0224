// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/members/.
export function Members() {
  return (
    <section>
      <h1>Members</h1>
    </section>
  );
}
