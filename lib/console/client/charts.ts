import uPlot from "uplot";
import uplotCss from "uplot/dist/uPlot.min.css";
import { h, table, uid } from "./dom";

const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

export type Series = { label: string; values: number[] };

/**
 * Bar charts as small multiples: one chart per series, each titled in words, so no series is told apart by
 * colour alone; the numbers are in a table beside them for screen readers and exact reading.
 */
export function barCharts(input: { title: string; categories: string[]; series: Series[]; format?: (n: number) => string }): HTMLElement {
  const format = input.format ?? ((n: number) => n.toLocaleString());
  const width = 560;
  const height = 140;
  const charts = input.series.map((series) => {
    const max = Math.max(1, ...series.values);
    const step = width / Math.max(1, series.values.length);
    const id = uid("chart");
    const root = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height + 30}`, width: "100%", role: "img", "aria-labelledby": id });
    root.appendChild(svg("title", { id }, `${input.title}: ${series.label}, ${series.values.length} values, highest ${format(Math.max(0, ...series.values))}`));
    series.values.forEach((value, i) => {
      const barHeight = Math.round((value / max) * height);
      const bar = svg("rect", {
        x: Math.round(i * step + step * 0.1),
        y: height - barHeight,
        width: Math.max(1, Math.round(step * 0.8)),
        height: barHeight,
        fill: "#0b57d0",
      });
      bar.appendChild(svg("title", {}, `${input.categories[i] ?? ""}: ${format(value)}`));
      root.appendChild(bar);
    });
    root.appendChild(svg("line", { x1: 0, y1: height, x2: width, y2: height, stroke: "#4a5360" }));
    root.appendChild(svg("text", { x: 0, y: height + 20 }, input.categories[0] ?? ""));
    root.appendChild(svg("text", { x: width, y: height + 20, "text-anchor": "end" }, input.categories[input.categories.length - 1] ?? ""));
    return h("figure", {}, h("figcaption", {}, `${series.label} (max ${format(Math.max(0, ...series.values))})`), root);
  });
  const data = table(
    ["", ...input.series.map((s) => s.label)],
    input.categories.map((category, i) => [category, ...input.series.map((s) => format(s.values[i] ?? 0))]),
  );
  return h("div", { class: "charts" }, ...charts, h("details", {}, h("summary", {}, `${input.title}: the numbers`), data));
}

let styled = false;
const live = new Set<uPlot>();
const COLOURS = ["#0b57d0", "#146c2e", "#b3261e", "#7c4dff", "#8a5a00", "#00696f"];
const DASHES = [[], [6, 3], [2, 3], [10, 3, 2, 3], [1, 1], [12, 2, 2, 2, 2, 2]];

/** How a time is named in the table: the viewer's local time, or a UTC hour or day (the admin API's buckets). */
type TimeLabels = "local" | "utc-hour" | "utc-day";

function timeLabel(t: number, labels: TimeLabels): string {
  if (labels === "local") return new Date(t).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
  const iso = new Date(t).toISOString();
  return labels === "utc-day" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * Time series as one uPlot line chart (bundled, no CDN): one line per series, told apart by colour and by
 * dash pattern, named in uPlot's legend; the numbers are in a table below for screen readers and exact reading.
 * Draw into an element already in the page: a chart not in the page when the next one is drawn is let go.
 */
export function timeSeries(input: { title: string; times: number[]; series: Series[]; width?: number; labels?: TimeLabels; unit?: string }): HTMLElement {
  const labels = input.labels ?? "local";
  if (!styled) {
    document.head.appendChild(h("style", {}, uplotCss));
    styled = true;
  }
  // Charts no longer in the page (a redraw, another page) let go of their window listeners.
  for (const plot of live) {
    if (!plot.root.isConnected) {
      plot.destroy();
      live.delete(plot);
    }
  }
  const host = h("div", { role: "img", "aria-label": `${input.title}: ${input.series.map((s) => s.label).join(", ")}; the numbers are in the table below.` });
  const plot = new uPlot(
    {
      width: input.width ?? 760,
      height: 260,
      series: [
        {},
        ...input.series.map((s, i) => ({
          label: s.label,
          stroke: COLOURS[i % COLOURS.length],
          dash: DASHES[i % DASHES.length],
          width: 2,
          points: { show: true },
        })),
      ],
      axes: [{}, { label: input.unit ?? "count" }],
      // UTC buckets are drawn on a UTC axis, so a day's point sits on its own date whatever the viewer's zone.
      ...(labels === "local" ? {} : { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC") }),
    },
    [input.times.map((t) => t / 1000), ...input.series.map((s) => s.values)],
    host,
  );
  live.add(plot);
  const data = table(
    ["", ...input.series.map((s) => s.label)],
    input.times.map((t, i) => [timeLabel(t, labels), ...input.series.map((s) => (s.values[i] ?? 0).toLocaleString())]),
  );
  return h("figure", { class: "charts" }, h("figcaption", {}, input.title), host, h("details", {}, h("summary", {}, `${input.title}: the numbers`), data));
}
