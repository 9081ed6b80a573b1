/**
 * Serves the dashboard that `npm run build` compiles into dist/web: the operator console at /ui/
 * and the customer portal at /portal/ (the same page; it tells them apart by its path). Nothing is
 * fetched from elsewhere at run time. Assets have content-hashed names, so they are cached for a
 * year; the page itself is revalidated every time so a new build shows at once.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** Only the files Vite writes: hashed names, no paths, so nothing outside the folder is served. */
const ASSET_NAME = /^[\w.-]+\.(js|css|svg|png|woff2)$/;

/** dist/web, found from the compiled module (dist/ui/) or from the source (src/ui/, in tests). */
export function dashboardDir(): string | null {
  const candidates = ["../web", "../../dist/web"].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? null;
}

function securityHeaders(reply: FastifyReply, embeddable: boolean): FastifyReply {
  return reply
    .header(
      "content-security-policy",
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        `connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors ${
          // A platform may embed its customers' portal in its own pages; the console stays its own.
          embeddable ? "*" : "'none'"
        }`,
    )
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer");
}

/** Registers /ui/ and /portal/ (pages) and /ui/assets/* (scripts and styles). */
export function installDashboard(app: FastifyInstance): void {
  const dir = dashboardDir();
  let page: Buffer | null = null;
  const index = async (reply: FastifyReply, embeddable: boolean) => {
    if (!dir) {
      return reply
        .code(503)
        .type("text/plain; charset=utf-8")
        .send("The dashboard is not built: run `npm run build`.\n");
    }
    page ??= await readFile(join(dir, "index.html"));
    return securityHeaders(reply, embeddable)
      .header("cache-control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(page);
  };
  app.get("/ui", (_req, reply) => reply.redirect("/ui/"));
  app.get("/portal", (_req, reply) => reply.redirect("/portal/"));
  app.get("/ui/", (_req, reply) => index(reply, false));
  app.get("/portal/", (_req, reply) => index(reply, true));
  app.get("/ui/assets/:file", async (req, reply) => {
    const file = (req.params as { file: string }).file;
    if (!dir || !ASSET_NAME.test(file)) return reply.callNotFound();
    const body = await readFile(join(dir, "assets", file)).catch(() => null);
    if (!body) return reply.callNotFound();
    return reply
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("x-content-type-options", "nosniff")
      .type(TYPES[extname(file)] ?? "application/octet-stream")
      .send(body);
  });
}
