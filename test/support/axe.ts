/**
 * axe-core, the accessibility checker, run in a dashboard page: what it finds that keeps a page
 * from being used with a screen reader or a keyboard, or from being read at all.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, ImpactValue } from "axe-core";
import type { Page } from "playwright-core";

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** A rule axe found broken, with where. */
export interface Violation {
  rule: string;
  impact: ImpactValue | null | undefined;
  help: string;
  /** Each element that breaks it: its selector and what axe says is wrong there. */
  where: string[];
}

/**
 * The rules axe runs by default (WCAG 2 A and AA, and its best practices) that `page` breaks as it
 * stands, whatever their impact. axe
 * is given to the page through the browser's debugging protocol, as an evaluation: the
 * dashboard's content security policy would refuse it as a script.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate<AxeResults>(
    "axe.run(document, { resultTypes: ['violations'] })",
  );
  return results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    where: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`),
  }));
}
