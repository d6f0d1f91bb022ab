// Issue 17's targets, each a ratio to the floor (or an absolute bound) measured in the same run. A bench returns its
// checks as `targets` in its result; `npm run bench` prints them all in one table at the end, with whether each holds.
export type TargetCheck = {
  /** What is measured, e.g. "CPU per request at concurrency 64". */
  target: string;
  /** The bound, in words: "≤ 1.2× the floor", "≤ 150 MiB". */
  bound: string;
  /** What this run measured, in words with units ("212 µs vs 180 µs"). */
  measured: string;
  /** Switchboard ÷ floor where the target is a ratio; null for absolute bounds. */
  ratio: number | null;
  holds: boolean;
};

export function check(
  target: string,
  bound: string,
  measured: string,
  ratio: number | null,
  holds: boolean,
): TargetCheck {
  return { target, bound, measured, ratio, holds };
}

export function targetsTable(rows: readonly (TargetCheck & { bench: string })[]): string {
  const lines = [
    '## Targets (issue 17)',
    '',
    '| bench | target | bound | measured | ratio | holds |',
    '| --- | --- | --- | --- | --: | :-: |',
    ...rows.map(
      (r) =>
        `| ${r.bench} | ${r.target} | ${r.bound} | ${r.measured} | ${r.ratio === null ? '' : `${r.ratio.toFixed(2)}×`} | ${r.holds ? 'yes' : '**no**'} |`,
    ),
  ];
  return lines.join('\n') + '\n';
}
