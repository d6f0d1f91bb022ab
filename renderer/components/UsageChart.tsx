// One time-series chart (uPlot on a canvas) of a usage summary's series: a line per measure, a legend of our own
// (uPlot's legend table is off), and the totals in words for screen readers. The element carries data-points (buckets
// with anything in them) and data-total (the first measure's sum), which the e2e test reads besides the pixels.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export type ChartLine = { label: string; color: string; values: number[] };

function options(width: number, lines: ChartLine[], format: (v: number) => string): uPlot.Options {
  return {
    width,
    height: 180,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { stroke: '#4b5563', grid: { stroke: '#e5e7eb' } },
      { stroke: '#4b5563', grid: { stroke: '#e5e7eb' }, size: 64, values: (_u, splits) => splits.map(format) },
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
  summary,
  testId,
}: {
  title: string;
  /** Bucket starts, epoch ms. */
  times: number[];
  lines: ChartLine[];
  format: (v: number) => string;
  /** The chart in words (its totals), read out instead of the canvas. */
  summary: string;
  testId: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((l) => l.label).join('|');
  const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...lines.map((l) => l.values)];

  // Made once per set of measures; resized with its box.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const u = new uPlot(options(Math.max(el.clientWidth, 200), lines, format), data, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(el.clientWidth, 200), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [shape]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    plot.current?.setData(data);
  });

  const points = times.filter((_, i) => lines.some((l) => (l.values[i] ?? 0) > 0)).length;
  const total = (lines[0]?.values ?? []).reduce((a, b) => a + b, 0);
  return (
    <figure className="chart" data-testid={testId} data-points={points} data-total={total}>
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
