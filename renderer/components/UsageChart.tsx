// One time-series chart (uPlot on a canvas) of a usage summary's series: a line per measure, a legend of our own
// (uPlot's legend table is off), and the totals in words for screen readers. The y axis steps in round numbers (whole
// ones for counts: chart-scale.ts); the axes and grid take the colour scheme's colours, and the chart is drawn again
// when the system's scheme changes. The element carries data-points (buckets with anything in them), data-total (the
// first measure's sum) and data-y-labels (the y axis' labels as drawn), which the e2e tests read besides the pixels.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { chartColours, yTicks } from './chart-scale.ts';

export type ChartLine = { label: string; color: string; values: number[] };

function options(
  width: number,
  lines: ChartLine[],
  format: (v: number) => string,
  whole: boolean,
  drawn: (labels: string[]) => void,
): uPlot.Options {
  const { grid, axis } = chartColours(getComputedStyle(document.documentElement));
  return {
    width,
    height: 180,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true },
      y: { range: (_u, _min, max) => [0, yTicks(max, whole).at(-1)!] },
    },
    axes: [
      { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid } },
      {
        stroke: axis,
        grid: { stroke: grid },
        ticks: { stroke: grid },
        size: 64,
        splits: (u) => yTicks(u.scales.y!.max ?? 0, whole).filter((t) => t <= (u.scales.y!.max ?? 1) + 1e-9),
        values: (_u, splits) => {
          const labels = splits.map(format);
          drawn(labels);
          return labels;
        },
      },
    ],
    series: [
      {},
      ...lines.map((l) => ({
        label: l.label,
        stroke: l.color,
        width: 2,
        points: { show: true, size: 5, fill: l.color },
      })),
    ],
  };
}

export function UsageChart({
  title,
  times,
  lines,
  format,
  whole = false,
  summary,
  testId,
}: {
  title: string;
  /** Counts (requests, tokens): the y axis has whole-number ticks only. */
  whole?: boolean;
  /** Bucket starts, epoch ms. */
  times: number[];
  lines: ChartLine[];
  format: (v: number) => string;
  /** The chart in words (its totals), read out instead of the canvas. */
  summary: string;
  testId: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((l) => l.label).join('|');
  const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...lines.map((l) => l.values)];
  const scheme = useColourScheme();

  // Made once per set of measures and colour scheme; resized with its box.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const drawn = (labels: string[]) => figure.current?.setAttribute('data-y-labels', labels.join(', '));
    const u = new uPlot(options(Math.max(el.clientWidth, 200), lines, format, whole, drawn), data, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(el.clientWidth, 200), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [shape, scheme]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    plot.current?.setData(data);
  });

  const points = times.filter((_, i) => lines.some((l) => (l.values[i] ?? 0) > 0)).length;
  const total = (lines[0]?.values ?? []).reduce((a, b) => a + b, 0);
  return (
    <figure ref={figure} className="chart" data-testid={testId} data-points={points} data-total={total}>
      <figcaption>
        <strong>{title}</strong>{' '}
        {lines.map((l) => (
          <span key={l.label} className="legend">
            <span className="swatch" style={{ background: l.color }} aria-hidden="true" />
            {l.label}
          </span>
        ))}
      </figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${summary}`} />
    </figure>
  );
}

/** "dark" or "light", following the system's setting as it changes. */
function useColourScheme(): string {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setDark(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return dark ? 'dark' : 'light';
}
