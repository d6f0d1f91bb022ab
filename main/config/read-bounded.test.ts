// The bounded reader of files Switchboard did not write: regular files only (a FIFO refused at once, never waited on),
// a size cap checked before and while reading, symbolic links refused when asked.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { FileRefusedError, readBoundedFile } from './read-bounded.ts';

let tmp: TempDir;
beforeEach(async () => void (tmp = await makeTempDir('sb-read-bounded')));
afterEach(() => tmp.cleanup());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as FileRefusedError,
  );

describe('readBoundedFile', () => {
  it('reads a regular file up to the cap; one byte more is refused with its size', async () => {
    const file = path.join(tmp.dir, 'a.json');
    await fs.writeFile(file, 'x'.repeat(100));
    expect((await readBoundedFile(file, { maxBytes: 100 })).length).toBe(100);
    const err = await refusal(readBoundedFile(file, { maxBytes: 99 }));
    expect(err).toBeInstanceOf(FileRefusedError);
    expect(err).toMatchObject({ reason: 'too_large', size: 100 });
    expect(err!.message).toBe(`${file} is 100 bytes, more than the 99 bytes Switchboard reads of it`);
  });

  it('follows a symbolic link unless noFollow; a folder is not a regular file; a missing file throws ENOENT', async () => {
    const target = path.join(tmp.dir, 'target.json');
    const link = path.join(tmp.dir, 'link.json');
    await fs.writeFile(target, '{}');
    await fs.symlink(target, link);
    expect((await readBoundedFile(link, { maxBytes: 10 })).toString()).toBe('{}');
    expect(await refusal(readBoundedFile(link, { maxBytes: 10, noFollow: true }))).toMatchObject({ reason: 'symlink' });
    expect(await refusal(readBoundedFile(tmp.dir, { maxBytes: 10 }))).toMatchObject({ reason: 'not_regular' });
    expect(await refusal(readBoundedFile(path.join(tmp.dir, 'none'), { maxBytes: 10 }))).toMatchObject({
      code: 'ENOENT',
    });
  });

  it.skipIf(process.platform === 'win32')('a FIFO with no writer is refused at once, never waited on', async () => {
    const fifo = path.join(tmp.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(readBoundedFile(fifo, { maxBytes: 10, timeoutMs: 60_000 }))).toMatchObject({
      reason: 'not_regular',
    });
  });
});
