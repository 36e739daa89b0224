// The console is static files: Vite bundles src/ into dist/ (hashed names, so a deployment can cache them forever).
// No plugin: esbuild/oxc compiles Preact's JSX itself (tsconfig's jsxImportSource), one dependency fewer.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // A chunk per lazily loaded page: the first page loads only what it shows.
    chunkSizeWarningLimit: 250,
  },
  // `npm run dev` (optional, for people working on the console): the API through the same origin, as CloudFront
  // and `make serve` serve it.
  server: { proxy: { "/api": "http://127.0.0.1:3000" } },
});
