// read_file / write_file / list_files, confined to the agent's workspace folder: no escape by .., absolute paths,
// symlinks or hard links. Reads and lists may follow a symlink whose target is inside the workspace (a cloned repo
// has such links); writes never go through a symlink, on any component of the path. Leaves are opened with
// O_NOFOLLOW (where the platform has it) and checked on the open handle, so a swap after the check cannot escape.
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

const MAX_FILE_BYTES = 1_000_000;
/** Owner-only, as the rest of Switchboard's data (docs/config.md, "Where config.json lives"): files 0600, folders 0700. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
// Undefined on Windows: there the lstat checks and the handle's identity check below stand alone.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0; // a FIFO planted in the workspace must not hang the open

const code = (err: unknown) => (err as NodeJS.ErrnoException)?.code;
const lstatOrNull = (p: string) =>
  fs.lstat(p).catch((err: unknown) => {
    if (code(err) === 'ENOENT') return null;
    throw err;
  });
const linkRefusal = (rel: string, link: string) =>
  new Error(`${rel}: ${link} is a symbolic link; write_file does not write through links (they may lead out)`);

/** The workspace's real path (created when missing) and `rel` resolved in it, refused when it lexically leaves. */
async function locate(root: string, rel: string): Promise<{ realRoot: string; target: string }> {
  await fs.mkdir(root, { recursive: true, mode: DIR_MODE });
  const realRoot = await fs.realpath(root);
  if (typeof rel !== 'string' || rel === '' || path.isAbsolute(rel))
    throw new Error('path must be relative to the workspace');
  const target = path.resolve(realRoot, rel);
  if (!isInside(realRoot, target)) throw new Error('path leaves the workspace');
  return { realRoot, target };
}
const isInside = (realRoot: string, p: string) => p === realRoot || p.startsWith(realRoot + path.sep);

/** The real path of an existing `rel` inside `root` (symlinks resolved), or an error when it leads out. */
export async function confine(root: string, rel: string): Promise<string> {
  const { realRoot, target } = await locate(root, rel);
  const real = await fs.realpath(target).catch((err: unknown) => {
    if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') throw new Error(`${rel} does not exist in the workspace`);
    throw err;
  });
  if (!isInside(realRoot, real)) throw new Error('path leaves the workspace (through a symbolic link)');
  return real;
}

/** Opens `file` (a real path already checked) and proves the handle is the regular file that lstat saw. */
async function openChecked(file: string, rel: string, flags: number, mode?: number): Promise<fs.FileHandle> {
  const handle = await fs.open(file, flags | NOFOLLOW | NONBLOCK, mode).catch((err: unknown) => {
    if (code(err) === 'ELOOP' || code(err) === 'EMLINK') throw new Error(`${rel} is a symbolic link`);
    if (code(err) === 'ENXIO') throw new Error(`${rel} is not a regular file`); // a FIFO with no reader
    throw err;
  });
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${rel} is not a regular file`);
    const now = await fs.lstat(file);
    if (now.isSymbolicLink() || now.ino !== st.ino || now.dev !== st.dev)
      throw new Error(`${rel} changed while it was being opened; try again`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export async function readFile(root: string, rel: string, signal?: AbortSignal): Promise<string> {
  const file = await confine(root, rel);
  if (!(await fs.lstat(file)).isFile()) throw new Error(`${rel} is not a regular file`);
  const handle = await openChecked(file, rel, constants.O_RDONLY);
  try {
    if ((await handle.stat()).size > MAX_FILE_BYTES) throw new Error(`file is larger than ${MAX_FILE_BYTES} bytes`);
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > MAX_FILE_BYTES) throw new Error(`file is larger than ${MAX_FILE_BYTES} bytes`);
      parts.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(parts).toString('utf8');
  } finally {
    await handle.close();
  }
}

export async function writeFile(root: string, rel: string, content: string, signal?: AbortSignal): Promise<string> {
  if (typeof content !== 'string') throw new Error('content must be a string');
  if (Buffer.byteLength(content) > MAX_FILE_BYTES) throw new Error(`content is larger than ${MAX_FILE_BYTES} bytes`);
  const { realRoot, target } = await locate(root, rel);
  if (target === realRoot) throw new Error('path must name a file in the workspace');
  const shown = (p: string) => path.relative(realRoot, p).split(path.sep).join('/');
  // Folders from the workspace down, one by one: each lstat'ed (made when missing, then lstat'ed again).
  let dir = realRoot;
  for (const part of path.relative(realRoot, path.dirname(target)).split(path.sep).filter(Boolean)) {
    dir = path.join(dir, part);
    let st = await lstatOrNull(dir);
    if (!st) {
      await fs.mkdir(dir, DIR_MODE).catch((err: unknown) => {
        if (code(err) !== 'EEXIST') throw err;
      });
      st = await fs.lstat(dir);
    }
    if (st.isSymbolicLink()) throw linkRefusal(rel, shown(dir));
    if (!st.isDirectory()) throw new Error(`${rel}: ${shown(dir)} is a file, not a folder`);
  }
  const leaf = await lstatOrNull(target);
  if (leaf?.isSymbolicLink()) throw linkRefusal(rel, shown(target));
  if (leaf && !leaf.isFile()) throw new Error(`${rel} is not a regular file`);
  const handle = await openChecked(target, rel, constants.O_WRONLY | constants.O_CREAT, FILE_MODE).catch(
    (err: Error) => {
      throw /symbolic link/.test(err.message) ? linkRefusal(rel, shown(target)) : err;
    },
  );
  try {
    // A second name for the file could be outside the workspace (a hard link from an unpacked archive).
    if ((await handle.stat()).nlink > 1)
      throw new Error(`${rel} has other hard links (one may be outside the workspace); write_file does not write it`);
    await handle.truncate(0);
    await handle.writeFile(content, { signal });
  } finally {
    await handle.close();
  }
  return `wrote ${Buffer.byteLength(content)} bytes to ${rel}`;
}

/** The folder's entries: folders end in `/`, symbolic links in `@` (write_file does not write through them). */
export async function listFiles(root: string, rel = '.'): Promise<string> {
  const dir = await confine(root, rel || '.');
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name))
    .sort()
    .join('\n');
}
