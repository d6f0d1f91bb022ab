// The server's view of a key file: concurrent lookups share their file checks (a gateway under load stats the file
// about twice per check's duration, not once per request), and a lookup made after a change always sees it.
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

  it('shares the file checks of concurrent lookups', async () => {
    t = await makeTempDir('switchboard-key-index');
    const file = path.join(t.dir, 'keys.json');
    await write(file, [{ sha256: 'a' }]);
    const index = new KeyIndex<Rec>(file);
    await index.get('a');
    const stat = vi.spyOn(fs, 'stat');
    const found = await Promise.all(Array.from({ length: 200 }, () => index.get('a')));
    expect(found.every((k) => k?.sha256 === 'a')).toBe(true);
    expect(stat.mock.calls.length).toBeLessThanOrEqual(2); // one running check, then one for every caller after it
  });

  it('a lookup made after a change sees it, even while an older check is running', async () => {
    t = await makeTempDir('switchboard-key-index');
    const file = path.join(t.dir, 'keys.json');
    await write(file, [{ sha256: 'a' }]);
    const index = new KeyIndex<Rec>(file);
    await index.get('a');
    for (let round = 0; round < 50; round++) {
      const before = index.get('a'); // a check starts (and may read the file before the change)
      await write(file, [{ sha256: 'a', revoked: round % 2 === 0 }]);
      const after = await index.get('a'); // made after the change: must see it
      expect(after?.revoked).toBe(round % 2 === 0);
      await before;
    }
  });
});
