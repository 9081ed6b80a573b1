/**
 * Builds the dashboard (console and customer portal share one page) into dist/web, which hookline
 * serves itself: no CDN, nothing fetched at run time.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/ui/",
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    assetsDir: "assets",
    // One small bundle; no source maps shipped to customers' browsers.
    sourcemap: false,
    target: "es2022",
  },
});
