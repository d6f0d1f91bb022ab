// The soak bench's verdict on issue 17's two soak targets (the bench itself holds 1,000 streams for 30 s: run by
// `npm run bench -- soak`, never by the tests).
import { expect, it } from 'vitest';
import { AFTER_RATIO, DEFAULT_SOAK, PEAK_MIB, soakTargets, type SoakTarget } from './soak.ts';

const measured = (peak: number, idle: number, after: number, failed = 0): SoakTarget => ({
  label: 'Switchboard (serve)',
  idle: { rssMiB: idle, fds: 20 },
  peakRssMiB: peak,
  peakFds: 2020,
  after: { rssMiB: after, fds: 20 },
  fdsBackAfterSec: 1,
  completed: DEFAULT_SOAK.streams - failed,
  failed,
  failures: [],
});

it('returns the peak and after-release targets with their bounds, holding exactly at each bound', () => {
  const at = soakTargets(measured(PEAK_MIB, 80, 80 * AFTER_RATIO), DEFAULT_SOAK);
  expect(at.map((t) => [t.target, t.bound, t.holds])).toEqual([
    ['peak RSS with 1,000 concurrent streams', '≤ 150 MiB', true],
    ['RSS after the streams are released', '≤ 1.1× idle', true],
  ]);
  expect(at[1]!.measured).toBe('88 MiB vs 80 MiB idle (1.10×)');
  const past = soakTargets(measured(PEAK_MIB + 1, 80, 80 * AFTER_RATIO + 0.5), DEFAULT_SOAK);
  expect(past.map((t) => t.holds)).toEqual([false, false]);
});

it('does not call the peak held when streams failed (a failed stream holds nothing)', () => {
  expect(soakTargets(measured(100, 80, 80, 3), DEFAULT_SOAK)[0]!.holds).toBe(false);
});
