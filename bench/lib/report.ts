/** The results table on stdout and the JSON files under bench/results/. */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { Figure } from "./scenario.js";

/** What the machine is, for the record. */
export function machine() {
  const cpu = cpus();
  return {
    nproc: cpu.length,
    cpuModel: cpu[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function formatValue(f: Figure): string {
  if (f.value === null) return "n/a";
  const v = f.value;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${f.unit}`;
}

function formatRatio(f: Figure): string {
  if (f.ratio === undefined || f.ratio === null) return "";
  return `${f.ratio.toFixed(2)}${f.ratioOf ? ` (of ${f.ratioOf})` : ""}`;
}

function verdict(f: Figure): string {
  if (f.pass === true) return "pass";
  if (f.pass === false) return "FAIL";
  return "";
}

/** The table as rows of cells: scenario, figure, value, ratio, target, result, note. */
export function tableRows(figures: readonly Figure[]): string[][] {
  return figures.map((f) => [
    f.scenario,
    f.figure,
    formatValue(f),
    formatRatio(f),
    f.target ?? "",
    verdict(f),
    f.note ?? "",
  ]);
}

const HEAD = ["scenario", "figure", "value", "ratio", "target", "result", "note"];

/** A plain-text table for the terminal. */
export function textTable(figures: readonly Figure[]): string {
  const rows = [HEAD, ...tableRows(figures)];
  const widths = HEAD.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c === 2 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join("  ")
      .trimEnd();
  return [
    line(rows[0]!),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.slice(1).map(line),
  ].join("\n");
}

/** The same table in Markdown, for docs/benchmarks.md. */
export function markdownTable(figures: readonly Figure[]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  return [
    `| ${HEAD.join(" | ")} |`,
    `|${HEAD.map((_, i) => (i === 2 || i === 3 ? "---:" : "---")).join("|")}|`,
    ...tableRows(figures).map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

/** Writes bench/results/latest.json, a dated copy, and latest.md (the Markdown table). */
export function writeResults(
  dir: string,
  results: { startedAt: string; figures: Figure[] },
): string[] {
  mkdirSync(dir, { recursive: true });
  const json = JSON.stringify(results, null, 2);
  const stamp = results.startedAt.replace(/[:.]/g, "-");
  const files = [join(dir, "latest.json"), join(dir, `${stamp}.json`), join(dir, "latest.md")];
  writeFileSync(files[0]!, json);
  writeFileSync(files[1]!, json);
  writeFileSync(files[2]!, markdownTable(results.figures) + "\n");
  return files;
}
