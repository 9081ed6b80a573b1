/**
 * A real browser for the dashboard's tests: Debian's chromium driven by playwright-core (which
 * never downloads a browser of its own). A missing chromium fails the tests; it is not a skip.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  chromium,
  type Browser,
  type BrowserServer,
  type Locator,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startHookline, type TestHookline } from "./hookline.js";
import { Receiver, type Behaviour } from "./receiver.js";

export const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(process.cwd(), "test-artifacts", "screenshots");

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

// One chromium per test process, started by the first file that asks and kept for the files the
// process runs after it (vitest runs them one after another in the same process, isolate off).
// Each of the dashboard's 120-odd files launched one of its own: with a page opened and closed,
// 0.45 s a file against 0.18 s for a connection to a running one (session 52's host). A chromium
// that died is started again.
let server: Promise<BrowserServer> | undefined;

async function runningServer(): Promise<BrowserServer> {
  const current = await server?.catch(() => undefined);
  const child = current?.process();
  if (current && child && child.exitCode === null && child.signalCode === null) return current;
  server = chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return server;
}

/**
 * A browser for one caller: a connection to the test process's headless chromium (no sandbox,
 * no network of its own). Its close() closes the contexts and pages opened through it, as
 * closing a browser of one's own would, and leaves chromium running for the next file.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); ` +
        ".ci/run does so when it is absent",
    );
  }
  return chromium.connect((await runningServer()).wsEndpoint());
}

/** Saves a full-page screenshot as a test artifact (test-artifacts/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in to the operator console with the admin token, as a person would. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/ui/`);
  await page.getByLabel("Admin token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Applications" }).waitFor();
}

/**
 * Opens a new portal link of application `appId` in `page`, as a customer given the link would,
 * and waits for the portal's first page (the endpoints of the application named `appName`).
 */
export async function openPortal(
  page: Page,
  h: TestHookline,
  appId: string,
  appName = "Acme",
): Promise<void> {
  const link = await h.svix.authentication.appPortalAccess(appId, { expiry: 3600 });
  await page.goto(link.url);
  await page.getByRole("heading", { name: `Endpoints of ${appName}` }).waitFor();
}

/**
 * On a message's page in the portal: the first line of its first delivery's card, which says
 * where the delivery stands ("pending · …", "fail · …").
 */
export function firstDeliveryStanding(page: Page): Locator {
  return page.getByRole("region", { name: "Deliveries" }).getByRole("article").locator("p").first();
}

/**
 * Where `needle` is drawn in the element of `locator`: the box of its first occurrence in the
 * element's text, in the page's pixels. Fails when the text does not hold it.
 */
export async function whereDrawn(
  locator: Locator,
  needle: string,
): Promise<{ left: number; right: number; top: number }> {
  return locator.evaluate((el, needle) => {
    const doc = el.ownerDocument;
    const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.textContent!.indexOf(needle);
      if (i < 0) continue;
      const range = doc.createRange();
      range.setStart(n, i);
      range.setEnd(n, i + needle.length);
      const { left, right, top } = range.getBoundingClientRect();
      return { left, right, top };
    }
    throw new Error(`${needle} is not shown`);
  }, needle);
}

/** What {@link useDashboard} gives a describe block's tests. */
export interface Dashboard {
  readonly h: TestHookline;
  readonly rx: Receiver;
  readonly browser: Browser;
  readonly page: Page;
}

/**
 * One hookline, one receiver and one browser page (1280×900) for a describe block: started before
 * its tests, stopped after them. Call it inside the describe; read its fields inside tests or later
 * hooks, since they exist only once its beforeAll has run.
 */
export function useDashboard(
  options: {
    hookline?: Parameters<typeof startHookline>[0];
    receiver?: Behaviour;
    signedIn?: boolean;
  } = {},
): Dashboard {
  let h: TestHookline | undefined;
  let rx: Receiver | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    h = await startHookline(options.hookline);
    rx = await Receiver.start(options.receiver);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    if (options.signedIn) await signIn(page, h.url, h.token);
  });
  // Whatever did start is stopped, even when a later step of the start failed.
  afterAll(async () => {
    await browser?.close();
    await rx?.close();
    await h?.stop();
  });
  const started = <T>(name: keyof Dashboard, value: T | undefined): T => {
    if (value === undefined) {
      throw new Error(
        `useDashboard: ${name} is not started yet; use it inside a test or a hook declared after ` +
          "useDashboard, not while the describe block is being collected",
      );
    }
    return value;
  };
  return {
    get h() {
      return started("h", h);
    },
    get rx() {
      return started("rx", rx);
    },
    get browser() {
      return started("browser", browser);
    },
    get page() {
      return started("page", page);
    },
  };
}

/**
 * Rewrites the JSON the API answers on its way to `page`, for a state hookline reaches only by
 * chance (a date-form Retry-After landing a few milliseconds ahead of its clock, say): `rule` is
 * asked of every field, at any depth, and what it returns replaces the field's value; undefined
 * leaves the field as it is, with its own fields asked in turn.
 */
export async function rewriteApiAnswers(
  page: Page,
  rule: (key: string, value: unknown) => unknown,
): Promise<void> {
  const rewritten = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewritten);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rule(k, v) ?? rewritten(v);
    return out;
  };
  await page.route(
    (url) => url.pathname.startsWith("/api/v1/"),
    async (route) => {
      const response = await route.fetch();
      const type = response.headers()["content-type"] ?? "";
      if (!type.includes("json")) return route.fulfill({ response });
      const body = JSON.stringify(rewritten(await response.json()));
      return route.fulfill({ response, body });
    },
  );
}
