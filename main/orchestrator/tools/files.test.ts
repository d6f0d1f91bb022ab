// The workspace tools against links planted in the workspace (a cloned repo can hold symlinks; an unpacked archive
// hard links and FIFOs): nothing is read, written or listed outside the workspace, and nothing hangs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listFiles, readFile, writeFile } from './files.ts';

let base = '';
let ws = '';
let outside = '';
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sb-ws-links-')));
  ws = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  await fs.mkdir(ws);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'outside secret');
});
afterEach(() => fs.rm(base, { recursive: true, force: true }));

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

describe('write_file refuses symlinks on every component of the path', () => {
  it('a dangling symlink at the leaf pointing outside: refused, nothing created outside', async () => {
    await fs.symlink(path.join(outside, 'planted.txt'), path.join(ws, 'notes.txt'));
    await expect(writeFile(ws, 'notes.txt', 'pwned')).rejects.toThrow(/notes\.txt is a symbolic link/);
    expect(await exists(path.join(outside, 'planted.txt'))).toBe(false);
  });

  it('a symlinked folder on the way, existing or dangling, pointing outside: refused, nothing created outside', async () => {
    await fs.symlink(outside, path.join(ws, 'out'));
    await fs.symlink(path.join(outside, 'later'), path.join(ws, 'dangling'));
    await fs.mkdir(path.join(ws, 'deep'));
    await fs.symlink(outside, path.join(ws, 'deep', 'link'));
    for (const rel of ['out/new.txt', 'out/sub/new.txt', 'dangling/new.txt', 'dangling/sub/new.txt', 'deep/link/x']) {
      await expect(writeFile(ws, rel, 'pwned'), rel).rejects.toThrow(/is a symbolic link/);
    }
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  });

  it('a symlink to an existing file outside: refused for write, read and list; the file is untouched', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret.txt'));
    await fs.symlink(outside, path.join(ws, 'out'));
    await expect(writeFile(ws, 'secret.txt', 'pwned')).rejects.toThrow(/symbolic link/);
    await expect(readFile(ws, 'secret.txt')).rejects.toThrow(/leaves the workspace/);
    await expect(readFile(ws, 'out/secret.txt')).rejects.toThrow(/leaves the workspace/);
    await expect(listFiles(ws, 'out')).rejects.toThrow(/leaves the workspace/);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  });

  it('a hard link to a file outside: refused for write; the file is untouched', async () => {
    await fs.link(path.join(outside, 'secret.txt'), path.join(ws, 'hard.txt'));
    await expect(writeFile(ws, 'hard.txt', 'pwned')).rejects.toThrow(/hard links/);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  });

  it('a symlink inside the workspace to a file inside: read and listed, never written through', async () => {
    await writeFile(ws, 'docs/real.md', 'inside');
    await fs.symlink('docs/real.md', path.join(ws, 'alias.md'));
    await fs.symlink('docs', path.join(ws, 'docs-link'));
    expect(await readFile(ws, 'alias.md')).toBe('inside');
    expect(await readFile(ws, 'docs-link/real.md')).toBe('inside');
    expect(await listFiles(ws, '.')).toBe('alias.md@\ndocs-link@\ndocs/');
    expect(await listFiles(ws, 'docs-link')).toBe('real.md');
    await expect(writeFile(ws, 'alias.md', 'changed')).rejects.toThrow(/alias\.md is a symbolic link/);
    await expect(writeFile(ws, 'docs-link/real.md', 'changed')).rejects.toThrow(/docs-link is a symbolic link/);
    expect(await fs.readFile(path.join(ws, 'docs/real.md'), 'utf8')).toBe('inside');
  });
});

describe('workspace files stay plain', () => {
  it('creates folders one by one, overwrites (truncating) and refuses a file in the way or a folder as the target', async () => {
    expect(await writeFile(ws, 'a/b/c/d.txt', 'hello world')).toBe('wrote 11 bytes to a/b/c/d.txt');
    expect(await writeFile(ws, 'a/b/c/d.txt', 'hi')).toBe('wrote 2 bytes to a/b/c/d.txt');
    expect(await readFile(ws, 'a/b/c/d.txt')).toBe('hi');
    await expect(writeFile(ws, 'a/b/c/d.txt/e.txt', 'x')).rejects.toThrow(/a\/b\/c\/d\.txt is a file, not a folder/);
    await expect(writeFile(ws, 'a/b', 'x')).rejects.toThrow(/a\/b is not a regular file/);
    await expect(writeFile(ws, '.', 'x')).rejects.toThrow(/must name a file/);
    await expect(readFile(ws, 'a')).rejects.toThrow(/a is not a regular file/);
    await expect(readFile(ws, 'missing.txt')).rejects.toThrow(/missing\.txt does not exist/);
  });

  it.skipIf(process.platform === 'win32')(
    'new files are 0600 and new folders 0700, whatever the umask lets through (the workspace root included)',
    async () => {
      const fresh = path.join(base, 'fresh-workspace');
      const before = process.umask(0o022);
      try {
        await writeFile(fresh, 'notes/today/a.txt', 'private');
      } finally {
        process.umask(before);
      }
      const mode = async (p: string) => (await fs.stat(path.join(fresh, p))).mode & 0o777;
      expect(await mode('.')).toBe(0o700);
      expect(await mode('notes')).toBe(0o700);
      expect(await mode('notes/today')).toBe(0o700);
      expect(await mode('notes/today/a.txt')).toBe(0o600);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'a FIFO planted in the workspace is refused at once for read and write instead of hanging',
    { timeout: 5000 },
    async () => {
      execFileSync('mkfifo', [path.join(ws, 'pipe')]);
      await expect(readFile(ws, 'pipe')).rejects.toThrow(/pipe is not a regular file/);
      await expect(writeFile(ws, 'pipe', 'x')).rejects.toThrow(/pipe is not a regular file/);
    },
  );
});
