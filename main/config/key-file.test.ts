// The server's view of a key file: a lookup with the file unchanged reads nothing (one synchronous stat), and a
// lookup made after a change always sees it, also while an older read is in flight.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from './atomic-write.ts';
import { KeyIndex } from './key-file.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';

type Rec = { sha256: string; revoked?: boolean };
const write = (file: string, keys: Rec[]) => writeFileAtomic(file, JSON.stringify({ keys }), 0o600);

describe('KeyIndex', () => {
  let t: TempDir | null = null;
  afterEach(async () => {
    vi.restoreAllMocks();
    await t?.cleanup();
  });

  it('reads the file only when it changed, and never waits on the thread pool to find that out', async () => {
    t = await makeTempDir('switchboard-key-index');
    const file = path.join(t.dir, 'keys.json');
    await write(file, [{ sha256: 'a' }]);
    const index = new KeyIndex<Rec>(file);
    await index.get('a');
    const stat = vi.spyOn(fs, 'stat');
    const read = vi.spyOn(fs, 'readFile');
    const found = await Promise.all(Array.from({ length: 200 }, () => index.get('a')));
    expect(found.every((k) => k?.sha256 === 'a')).toBe(true);
    expect(stat).not.toHaveBeenCalled();
    expect(read).not.toHaveBeenCalled();
    await write(file, [{ sha256: 'b' }]);
    expect(await index.get('b')).toEqual({ sha256: 'b' });
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('a lookup made after a change sees it, even while an older read is in flight', async () => {
    t = await makeTempDir('switchboard-key-index');
    const file = path.join(t.dir, 'keys.json');
    await write(file, [{ sha256: 'a' }]);
    const index = new KeyIndex<Rec>(file);
    await index.get('a');
    for (let round = 0; round < 50; round++) {
      await write(file, [{ sha256: 'a', revoked: round % 2 === 1 }]);
      const older = index.get('a'); // reads the change just made
      await write(file, [{ sha256: 'a', revoked: round % 2 === 0 }]);
      const after = await index.get('a'); // made after the second change: must see it
      expect(after?.revoked).toBe(round % 2 === 0);
      await older;
      expect((await index.get('a'))?.revoked).toBe(round % 2 === 0); // and the older read did not put back its keys
    }
  });
});
