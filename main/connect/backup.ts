// What Connect keeps to undo a connect: under `<config dir>/connect/<tool>/`, a manifest (which file, whether it
// existed, its mode, the folders Connect created, the SHA-256 of the bytes before and after, the identity of the file
// it wrote) and `previous`, the exact bytes the file held before Connect first wrote it. Owner-only (0600 files, 0700
// folders): the bytes may hold keys. Both are read as files someone may have changed (never through a link, size
// capped): Undo trusts none of it beyond what it checks against the tool's own settings path (connect.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic-write.ts';
import { readBoundedFile } from '../config/read-bounded.ts';

/** The largest manifest and previous bytes read back (a settings file is a few KB; a manifest far less). */
const MAX_MANIFEST_BYTES = 64 * 1024;
export const MAX_PREVIOUS_BYTES = 16 * 1024 * 1024;

export const ManifestSchema = z.object({
  version: z.literal(1),
  tool: z.string(),
  /** The settings file as the tool reads it. */
  path: z.string(),
  /** The file written: `path`, or the file its symlink points to. */
  target: z.string(),
  existed: z.boolean(),
  /** The permission bits it had (null when it did not exist). */
  mode: z.number().int().nullable(),
  /** Folders Connect created for it, outermost first (Undo removes them when they are empty). */
  created_dirs: z.array(z.string()),
  before_sha256: z.string().nullable(),
  after_sha256: z.string(),
  /** The device and inode of the file Connect wrote (absent in manifests written before they were kept). */
  after_dev: z.number().optional(),
  after_ino: z.number().optional(),
  connected_at: z.string(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

export const sha256 = (bytes: Buffer | null): string | null =>
  bytes === null ? null : createHash('sha256').update(bytes).digest('hex');

/** The folder of one tool's backup. */
export const backupDir = (configDir: string, tool: string): string => path.join(configDir, 'connect', tool);
const manifestPath = (configDir: string, tool: string) => path.join(backupDir(configDir, tool), 'manifest.json');
/** The file holding the bytes before Connect's first write. */
export const previousPath = (configDir: string, tool: string): string =>
  path.join(backupDir(configDir, tool), 'previous');

/** The tool's manifest, or null when there is nothing to undo (none, or one that cannot be read as a manifest). */
export async function readManifest(configDir: string, tool: string): Promise<Manifest | null> {
  let text: string;
  try {
    const bytes = await readBoundedFile(manifestPath(configDir, tool), {
      maxBytes: MAX_MANIFEST_BYTES,
      noFollow: true,
    });
    text = bytes.toString('utf8');
  } catch {
    return null;
  }
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function readPrevious(configDir: string, tool: string): Promise<Buffer> {
  return readBoundedFile(previousPath(configDir, tool), { maxBytes: MAX_PREVIOUS_BYTES, noFollow: true });
}

/** Keeps the bytes before a write (none when the file did not exist), then the manifest that points at them. */
export async function saveBackup(configDir: string, manifest: Manifest, previous: Buffer | null): Promise<void> {
  const dir = backupDir(configDir, manifest.tool);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (previous !== null) await writeFileAtomic(previousPath(configDir, manifest.tool), previous, 0o600);
  else await fs.rm(previousPath(configDir, manifest.tool), { force: true });
  await writeManifest(configDir, manifest);
}

export async function writeManifest(configDir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(manifestPath(configDir, manifest.tool), `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
}

/** Forgets the backup once undone (files kept by a forced Undo stay). */
export async function clearBackup(configDir: string, tool: string): Promise<void> {
  await fs.rm(manifestPath(configDir, tool), { force: true });
  await fs.rm(previousPath(configDir, tool), { force: true });
}

/** Keeps bytes a forced Undo is about to replace, as `replaced-<UTC time>`; answers where. */
export async function keepReplaced(configDir: string, tool: string, bytes: Buffer): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '');
  const file = path.join(backupDir(configDir, tool), `replaced-${stamp}-${process.pid}`);
  await writeFileAtomic(file, bytes, 0o600);
  return file;
}
