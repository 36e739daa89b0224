// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/auth/.
export function Account() {
  return (
    <section>
      <h1>Account</h1>
    </section>
  );
}
