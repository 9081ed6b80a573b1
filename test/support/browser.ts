/**
 * A real browser for the dashboard's tests: Debian's chromium driven by playwright-core (which
 * never downloads a browser of its own). A missing chromium fails the tests; it is not a skip.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(process.cwd(), "test-artifacts", "screenshots");

/** Launches chromium headless, without sandbox or any network of its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); ` +
        ".ci/run does so when it is absent",
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
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
