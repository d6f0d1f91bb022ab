// read_file / write_file / list_files, confined to the agent's workspace folder (no escape by .., absolute paths or symlinks).
import fs from 'node:fs/promises';
import path from 'node:path';

const MAX_FILE_BYTES = 1_000_000;

/** The real path of `rel` inside `root`, or an error when it would leave the workspace. */
export async function confine(root: string, rel: string): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  const realRoot = await fs.realpath(root);
  if (typeof rel !== 'string' || rel === '' || path.isAbsolute(rel))
    throw new Error('path must be relative to the workspace');
  const target = path.resolve(realRoot, rel);
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);
  if (!inside(target)) throw new Error('path leaves the workspace');
  // The deepest existing ancestor must also resolve inside (a symlink planted in the workspace must not lead out).
  let probe = target;
  for (;;) {
    try {
      const real = await fs.realpath(probe);
      if (!inside(real)) throw new Error('path leaves the workspace');
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      probe = path.dirname(probe);
    }
  }
  return target;
}

export async function readFile(root: string, rel: string, signal?: AbortSignal): Promise<string> {
  const file = await confine(root, rel);
  const st = await fs.stat(file);
  if (st.size > MAX_FILE_BYTES) throw new Error(`file is larger than ${MAX_FILE_BYTES} bytes`);
  return fs.readFile(file, { encoding: 'utf8', signal });
}

export async function writeFile(root: string, rel: string, content: string, signal?: AbortSignal): Promise<string> {
  if (typeof content !== 'string') throw new Error('content must be a string');
  if (Buffer.byteLength(content) > MAX_FILE_BYTES) throw new Error(`content is larger than ${MAX_FILE_BYTES} bytes`);
  const file = await confine(root, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content, { signal });
  return `wrote ${Buffer.byteLength(content)} bytes to ${rel}`;
}

export async function listFiles(root: string, rel = '.'): Promise<string> {
  const dir = await confine(root, rel || '.');
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort()
    .join('\n');
}
