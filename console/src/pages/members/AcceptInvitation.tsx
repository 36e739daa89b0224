// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/members/.
export function AcceptInvitation() {
  return (
    <section>
      <h1>AcceptInvitation</h1>
    </section>
  );
}
