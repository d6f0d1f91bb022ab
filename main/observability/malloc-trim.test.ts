// On this machine's real allocator: what mallocTrim does to the process's resident memory. The tests run in order in
// one process (vitest's forks pool): the first one measures glibc before mallocTrim is loaded.
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { mallocTrim, whyNotTrimming } from './malloc-trim.ts';

const MiB = 2 ** 20;
const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
const glibc = process.platform === 'linux' && Boolean(report.header.glibcVersionRuntime);
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** RSS given back when a malloc'd block of this size is dropped and collected (Buffer.allocUnsafeSlow: not pooled). */
async function rssBackAfterDropping(bytes: number): Promise<number> {
  let block: Buffer | null = Buffer.allocUnsafeSlow(bytes).fill(1);
  const held = process.memoryUsage.rss();
  const heldByBuffers = process.memoryUsage().arrayBuffers;
  expect(block[bytes - 1]).toBe(1);
  block = null;
  gc();
  gc();
  await freed(heldByBuffers - bytes);
  return held - process.memoryUsage.rss();
}

/** Waits until Node's allocator has freed the block: backing stores are freed after the collection, on a later task
 * (50 ms was not always enough on a loaded machine, and RSS read before the free says nothing was given back). */
async function freed(arrayBuffersAtMost: number): Promise<void> {
  for (let waited = 0; process.memoryUsage().arrayBuffers > arrayBuffersAtMost; waited += 10) {
    if (waited > 10_000) throw new Error('the dropped block was not freed within 10 s');
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Where glibc is not the allocator (macOS, Windows, musl), each test checks that the trim is off and says why. */
function off(): boolean {
  if (glibc) return false;
  expect(mallocTrim()).toBeNull();
  expect(whyNotTrimming()).not.toBe('');
  return true;
}

describe(`mallocTrim (${glibc ? 'glibc' : 'no glibc'} here)`, () => {
  it('pins the thresholds glibc raises: an 8 MiB block is given back when freed once the trim is loaded', async () => {
    if (off()) return;
    // Freeing a 24 MiB block (mapped on its own) raises glibc's mmap threshold to 24 MiB and its trim threshold to
    // 48 MiB, as a code cache read at start does: from then on an 8 MiB block comes from the heap, and freeing it
    // leaves it there.
    await rssBackAfterDropping(24 * MiB);
    expect(await rssBackAfterDropping(8 * MiB)).toBeLessThan(2 * MiB);
    expect(mallocTrim()).toBeTypeOf('function');
    expect(await rssBackAfterDropping(8 * MiB)).toBeGreaterThan(6 * MiB);
  });

  it("gives a fragmented arena's free pages back to the system", async () => {
    if (off()) return;
    const trimNow = mallocTrim();
    expect(whyNotTrimming()).toBe('');
    // 64 MiB in 256-byte malloc'd blocks, one in 64 kept: once the rest are collected their pages are free but sit
    // below live blocks, so glibc cannot shrink the heap by itself.
    let junk: Buffer[] | null = [];
    const kept: Buffer[] = [];
    for (let i = 0; i < 262_144; i++) (i % 64 === 0 ? kept : junk).push(Buffer.allocUnsafeSlow(256).fill(i));
    const heldByBuffers = process.memoryUsage().arrayBuffers;
    junk = null;
    gc();
    gc();
    await freed(heldByBuffers - 60 * MiB);
    const before = process.memoryUsage.rss();
    expect(trimNow!()).toBe(true);
    expect(before - process.memoryUsage.rss()).toBeGreaterThan(20 * MiB);
    expect(kept.every((b, i) => b[0] === ((i * 64) & 0xff))).toBe(true); // what is in use is untouched
  });
});
