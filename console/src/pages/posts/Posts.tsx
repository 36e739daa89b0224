// PLACEHOLDER (issue 41 scaffold): replaced by the helper that owns pages/posts/.
export function Posts() {
  return (
    <section>
      <h1>Posts</h1>
    </section>
  );
}
