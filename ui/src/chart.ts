/** Small inline SVG charts (no chart library): a line over time with labelled axes. */
import { plural } from "./format.js";

const NS = "http://www.w3.org/2000/svg";
const W = 600;
const H = 160;
// The left pad holds the y axis labels, drawn right-aligned up to 6 units before the plot: room for
// about seven characters ("100%", "999 ms", "15.0 s") at the chart's 11-unit font.
const PAD = { left: 56, right: 12, top: 12, bottom: 24 };

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A line chart of `points` (x: ms since the epoch); `format` labels the y axis. */
export function lineChart(
  title: string,
  points: { x: number; y: number }[],
  options: { yMax?: number; xMin?: number; xMax?: number; format: (y: number) => string },
): SVGSVGElement {
  const label = (x: number) => new Date(x).toLocaleTimeString([], { timeStyle: "short" });
  // What a screen reader says for the picture: the latest point and the extremes, in words.
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    class: "chart",
    "aria-label": describe(title, points, options.format, label),
  });
  root.appendChild(svg("title", {}, title));
  const yMax = options.yMax ?? Math.max(1, ...points.map((p) => p.y));
  const xs = points.map((p) => p.x);
  const x0 = options.xMin ?? Math.min(...xs);
  const x1 = Math.max(options.xMax ?? 0, ...xs, x0 + 1);
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => H - PAD.bottom - (y / yMax) * (H - PAD.top - PAD.bottom);
  for (const tick of [0, 0.5, 1]) {
    const y = sy(yMax * tick);
    root.appendChild(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: "grid" }));
    root.appendChild(
      svg("text", { x: PAD.left - 6, y: y + 4, "text-anchor": "end" }, options.format(yMax * tick)),
    );
  }
  if (points.length === 0) {
    root.appendChild(
      svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "No attempts in this window"),
    );
    return root;
  }
  const d = points.map((p, i) => `${i ? "L" : "M"}${sx(p.x)},${sy(p.y)}`).join(" ");
  root.appendChild(svg("path", { d, class: "line" }));
  for (const p of points) root.appendChild(svg("circle", { cx: sx(p.x), cy: sy(p.y), r: 3 }));
  root.appendChild(svg("text", { x: PAD.left, y: H - 6 }, label(x0)));
  root.appendChild(svg("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end" }, label(x1)));
  return root;
}

/** The chart in one sentence, e.g. "Success rate: latest 100% at 14:05; lowest 80% at 13:40…". */
function describe(
  title: string,
  points: readonly { x: number; y: number }[],
  format: (y: number) => string,
  label: (x: number) => string,
): string {
  if (points.length === 0) return `${title}: no attempts in this window`;
  const at = (p: { x: number; y: number }) => `${format(p.y)} at ${label(p.x)}`;
  let low = points[0]!;
  let high = low;
  for (const p of points) {
    if (p.y < low.y) low = p;
    if (p.y > high.y) high = p;
  }
  const latest = points[points.length - 1]!;
  return `${title}: latest ${at(latest)}; lowest ${at(low)}; highest ${at(high)} (${plural(points.length, "point")})`;
}
