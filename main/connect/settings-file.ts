// Reading and writing a tool's settings file. A settings file that is a symlink (a dotfiles repository, stow, chezmoi)
// is written through: the file it points to is replaced atomically (temp file beside it, rename) and the link stays
// a link, as the user set it up. A link to nothing, or a path that is a folder, is refused rather than replaced.
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.ts';
import { ApiError } from '../errors.ts';

export type SettingsFile = {
  /** The path the tool reads. */
  path: string;
  /** The file read and written: `path`, or what its symlink resolves to. */
  target: string;
  bytes: Buffer | null;
  /** The text without a UTF-8 byte order mark (null: no file). */
  text: string | null;
  bom: boolean;
  /** Permission bits (null: no file). */
  mode: number | null;
};

export async function readSettingsFile(file: string): Promise<SettingsFile> {
  let target = file;
  try {
    const st = await fs.lstat(file);
    if (st.isSymbolicLink()) {
      try {
        target = await fs.realpath(file);
      } catch {
        throw new ApiError(
          'invalid_request',
          `${file} is a symlink to ${await fs.readlink(file)}, which does not exist; nothing was written.`,
          'Point the link at a file (or remove it), then connect again.',
        );
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { path: file, target, bytes: null, text: null, bom: false, mode: null };
  }
  const st = await fs.stat(target);
  if (!st.isFile())
    throw new ApiError('invalid_request', `${file} is not a file; nothing was written.`, 'Move it away, then retry.');
  const bytes = await fs.readFile(target);
  const raw = bytes.toString('utf8');
  const bom = raw.startsWith('\uFEFF');
  return { path: file, target, bytes, text: bom ? raw.slice(1) : raw, bom, mode: st.mode & 0o777 };
}

/**
 * The folders that do not exist yet on the way to `file`, outermost first. One that is there but is not a folder (a
 * file, or a symlink to nothing, as a dangling `~/.claude` left by an uninstalled dotfiles setup) is refused before
 * anything is written (issue 33, item 6: it crashed the CLI after the manifest was written).
 */
export async function missingDirs(file: string): Promise<string[]> {
  const out: string[] = [];
  let dir = path.dirname(file);
  for (;;) {
    const st = await fs.stat(dir).catch((err: NodeJS.ErrnoException) => err);
    if (!(st instanceof Error)) {
      if (st.isDirectory()) return out;
      throw new ApiError(
        'invalid_request',
        `${dir} is a file, not a folder, so ${file} cannot be written; nothing was written.`,
        `Move ${dir} away (or remove it), then connect again.`,
      );
    }
    const link = await fs.readlink(dir).catch(() => null);
    if (link !== null)
      throw new ApiError(
        'invalid_request',
        `${dir} is a symlink to ${link}, which does not exist, so ${file} cannot be written; nothing was written.`,
        `Point the link at a folder (or remove it), then connect again.`,
      );
    if (st.code !== 'ENOENT' && st.code !== 'ENOTDIR') throw st;
    out.unshift(dir);
    const up = path.dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

/** Writes atomically with the given mode, creating missing folders with the default mode (the umask's). */
export async function writeSettings(target: string, bytes: Buffer, mode: number): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  await writeFileAtomic(target, bytes, mode);
}

/** Removes a file Connect created, then the folders it created for it, innermost first, while they are empty. */
export async function removeCreated(target: string, dirs: string[]): Promise<void> {
  await fs.rm(target, { force: true });
  for (const dir of [...dirs].reverse()) {
    try {
      await fs.rmdir(dir);
    } catch {
      return; // not empty (or gone): leave it and the folders above it
    }
  }
}
