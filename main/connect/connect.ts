// Connect: where every tool stands, pointing one at Switchboard, and undoing it byte for byte. The admin API
// (main/server/connect-routes.ts) and the CLI (cli.ts) both call these; they edit files directly, so they work whether
// or not the server is running. Refusals are ApiErrors: 404 unknown tool or nothing to undo, 400 a manual tool or a
// file that does not parse (file:line:column, nothing written), 409 connect_conflict a tool that points elsewhere
// (or a file changed since Connect wrote it) without `force`.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConnectOverview, ConnectResult, PortFollow, ToolStatus } from '../../shared/connect.ts';
import { CONNECT_TOOL_IDS } from '../../shared/connect.ts';
import type { RouteExplanation } from '../../shared/admin.ts';
import type { ProviderConfig, RoutingRule } from '../../shared/config.ts';
import { checkRoute } from './route-check.ts';
import { ApiError } from '../errors.ts';
import {
  backupDir,
  clearBackup,
  keepReplaced,
  type Manifest,
  previousPath,
  readManifest,
  readPrevious,
  saveBackup,
  sha256,
  writeManifest,
} from './backup.ts';
import { baseUrlsFor, currentToolEnv, exists, type ToolEnv } from './env.ts';
import { ParseProblem } from './formats/problem.ts';
import { missingDirs, readSettingsFile, removeCreated, type SettingsFile, writeSettings } from './settings-file.ts';
import { TOOLS, toolById } from './tools/index.ts';
import { CannotEdit, type FileTool, type Reading, type Tool, type ToolCtx } from './tools/types.ts';

/** Who answers a model for an app, and the config it routes with (the running engine's): Connect's routing check. */
export type ConnectRouting = {
  resolve: (model: string, app: string) => Pick<RouteExplanation, 'candidates' | 'skipped'>;
  config: { providers: ProviderConfig[]; routing: { rules: RoutingRule[] } };
};

export type ConnectDeps = {
  /** The folder of config.json: backups go to `<configDir>/connect/<tool>/`. */
  configDir: string;
  /** The port Switchboard listens on. */
  port: number;
  /** Model names to list where a tool needs them (OpenCode) or to show (manual tools): the ones Switchboard serves. */
  models?: string[];
  /** With it, each tool's usual models are checked against the routes (ToolStatus.routes). */
  routing?: ConnectRouting;
  env?: ToolEnv;
};

const ctxOf = (d: ConnectDeps): ToolCtx => ({
  env: d.env ?? currentToolEnv(),
  port: d.port,
  urls: baseUrlsFor(d.port),
  models: d.models ?? [],
});

/** What a file holds, or the problem that keeps it from being read. */
type FileState = { file: SettingsFile | null; reading: Reading | null; problem: string | null; where: string };

async function inspect(tool: FileTool, ctx: ToolCtx): Promise<FileState & { role: string }> {
  const { path, role } = await tool.file(ctx);
  try {
    const file = await readSettingsFile(path);
    return { file, reading: tool.read(file.text, ctx, path), problem: null, where: path, role };
  } catch (err) {
    if (err instanceof ParseProblem)
      return {
        file: null,
        reading: null,
        problem: `line ${err.line}, column ${err.column}: ${err.message}`,
        where: path,
        role,
      };
    if (err instanceof ApiError) return { file: null, reading: null, problem: err.message, where: path, role };
    return { file: null, reading: null, problem: (err as Error).message, where: path, role };
  }
}

export async function toolStatus(deps: ConnectDeps, tool: Tool): Promise<ToolStatus> {
  const ctx = ctxOf(deps);
  const base = {
    id: tool.id,
    name: tool.name,
    kind: tool.kind,
    app: tool.app,
    format: tool.format,
    values: tool.values(ctx),
  };
  if (tool.kind === 'manual') {
    const installed = await tool.installed(ctx);
    return {
      ...base,
      installed,
      state: 'manual',
      files: [],
      current: null,
      detail: tool.detail,
      can_undo: false,
      steps: tool.steps(ctx),
      routes: [],
    };
  }
  const s = await inspect(tool, ctx);
  const fileExists = s.file ? s.file.bytes !== null : await exists(s.where);
  const installed = fileExists || (await tool.installed(ctx));
  const state = s.problem ? 'broken' : !installed ? 'not_installed' : s.reading!.state;
  return {
    ...base,
    installed,
    state,
    files: [{ path: s.where, exists: fileExists, role: s.role }],
    current: s.reading?.current ?? null,
    detail: s.problem
      ? `${s.where}: ${s.problem}`
      : !installed
        ? 'not found on this machine (neither its settings folder nor its program on PATH)'
        : s.reading!.detail,
    can_undo: (await readManifest(deps.configDir, tool.id)) !== null,
    steps: tool.steps(ctx, s.where),
    routes:
      deps.routing && tool.usual && !s.problem
        ? tool
            .usual(s.file?.text ?? null)
            .map((u) => checkRoute(u, deps.routing!.resolve(u.model, tool.app), deps.routing!.config, tool.name))
        : [],
  };
}

export async function connectOverview(deps: ConnectDeps): Promise<ConnectOverview> {
  return { base_urls: baseUrlsFor(deps.port), tools: await Promise.all(TOOLS.map((t) => toolStatus(deps, t))) };
}

function find(id: string): Tool {
  const tool = toolById(id);
  if (!tool) throw new ApiError('not_found', `No tool "${id}".`, `Use one of: ${CONNECT_TOOL_IDS.join(', ')}.`);
  return tool;
}

function fileTool(tool: Tool): FileTool {
  if (tool.kind === 'file') return tool;
  throw new ApiError(
    'invalid_request',
    `${tool.detail}.`,
    `Copy the values shown for ${tool.name} (GET /admin/v1/connect, or \`switchboard connect\`) into its settings.`,
  );
}

const forceHow = (id: string, undo = false) =>
  `switchboard connect ${id}${undo ? ' --undo' : ''} --force, or POST /admin/v1/connect/${id}${undo ? '/undo' : ''} with {"force": true}`;

/** Points one file tool at Switchboard. A tool already connected is left as it is (nothing written). */
export async function connectTool(
  deps: ConnectDeps,
  id: string,
  opts: { force?: boolean } = {},
): Promise<ConnectResult> {
  const tool = fileTool(find(id));
  const ctx = ctxOf(deps);
  const { path } = await tool.file(ctx);
  const file = await readSettingsFile(path);
  let reading: Reading;
  try {
    reading = tool.read(file.text, ctx, path);
  } catch (err) {
    if (!(err instanceof ParseProblem)) throw err;
    throw new ApiError(
      'invalid_request',
      `${path}:${err.line}:${err.column}: ${err.message}. ${tool.name}'s settings file does not parse; nothing was written.`,
      `Fix ${path} at line ${err.line}, column ${err.column} (or move it away), then connect again.`,
    );
  }
  if (reading.state === 'connected')
    return {
      tool: await toolStatus(deps, tool),
      changed: [],
      message: `${tool.name} already points at Switchboard; nothing was changed.`,
    };
  const manifest = await readManifest(deps.configDir, tool.id);
  // Connect's own earlier write (e.g. for another port) is not someone else's setting.
  const ours = manifest !== null && manifest.target === file.target && manifest.after_sha256 === sha256(file.bytes);
  if (reading.state === 'elsewhere' && !opts.force && !ours)
    throw new ApiError(
      'connect_conflict',
      `${tool.name} points elsewhere: ${path} has ${reading.detail}. Nothing was changed.`,
      `To point it at Switchboard anyway: ${forceHow(tool.id)}. The file is backed up first and Undo brings it back.`,
    );
  let text: string;
  try {
    text = tool.write(file.text, ctx, path);
    if (tool.read(text, ctx, path).state !== 'connected')
      throw new CannotEdit(`the file did not read back as connected`);
  } catch (err) {
    if (!(err instanceof CannotEdit)) throw err;
    throw new ApiError(
      'invalid_request',
      `${path}: ${err.message}; nothing was written.`,
      `Set it by hand: ${tool.steps(ctx, path).join(' ')}`,
    );
  }
  const bytes = Buffer.from((file.bom ? '\uFEFF' : '') + text, 'utf8');
  const createdDirs = file.bytes === null ? await missingDirs(file.target) : [];
  let written: Manifest;
  if (ours) {
    written = { ...manifest, after_sha256: sha256(bytes)!, connected_at: new Date().toISOString() };
    await writeManifest(deps.configDir, written);
  } else {
    written = {
      version: 1,
      tool: tool.id,
      path,
      target: file.target,
      existed: file.bytes !== null,
      mode: file.mode,
      created_dirs: createdDirs,
      before_sha256: sha256(file.bytes),
      after_sha256: sha256(bytes)!,
      connected_at: new Date().toISOString(),
    };
    await saveBackup(deps.configDir, written, file.bytes);
  }
  try {
    await writeSettings(file.target, bytes, file.mode ?? 0o600);
  } catch (err) {
    // Nothing was changed: the backup of this attempt is forgotten (an earlier connect's stays).
    if (ours) await writeManifest(deps.configDir, manifest).catch(() => {});
    else await clearBackup(deps.configDir, tool.id).catch(() => {});
    throw new ApiError(
      'invalid_request',
      `${path} could not be written: ${(err as Error).message}; nothing was changed.`,
      `Check that ${path} and its folder can be written, then connect again.`,
    );
  }
  // The identity of the file written, so Undo knows it is still that file.
  const st = await fs.stat(file.target).catch(() => null);
  if (st) await writeManifest(deps.configDir, { ...written, after_dev: st.dev, after_ino: st.ino }).catch(() => {});
  const kept = ours ? manifest : await readManifest(deps.configDir, tool.id);
  const backup = kept?.existed ? previousPath(deps.configDir, tool.id) : null;
  return {
    tool: await toolStatus(deps, tool),
    changed: [{ path, action: file.bytes === null ? 'created' : 'modified', backup }],
    message:
      `${tool.name} now points at Switchboard (${path}); requests are named "${tool.app}".` +
      (backup ? ` The previous file is kept in ${backup}.` : '') +
      ` Undo: switchboard connect ${tool.id} --undo.`,
  };
}

/**
 * Puts back exactly what Connect replaced: the previous bytes and mode, or no file (and no folders Connect created).
 * A file changed since Connect wrote it is refused (409) unless `force`, which keeps the current bytes first.
 */
export async function undoTool(deps: ConnectDeps, id: string, opts: { force?: boolean } = {}): Promise<ConnectResult> {
  const tool = find(id);
  const manifest = await readManifest(deps.configDir, tool.id);
  if (tool.kind === 'manual' || !manifest)
    throw new ApiError(
      'not_found',
      `Nothing to undo for ${tool.name}: Connect has not changed its settings (or the change was already undone).`,
      'GET /admin/v1/connect shows can_undo for each tool.',
    );
  await checkManifest(deps, tool, manifest);
  const current = await readSettingsFile(manifest.target).catch(() => null);
  const currentBytes = current?.bytes ?? null;
  let kept: string | null = null;
  // The file Connect wrote, still: the same bytes and, where the manifest knows it, the same file (device and inode).
  const sameFile =
    manifest.after_ino === undefined || currentBytes === null || (await isFile(manifest.target, manifest));
  if (sha256(currentBytes) !== manifest.after_sha256 || !sameFile) {
    if (currentBytes === null && !manifest.existed) {
      await clearBackup(deps.configDir, tool.id);
      return {
        tool: await toolStatus(deps, tool),
        changed: [],
        message: `${manifest.path} is already gone; nothing to undo.`,
      };
    }
    if (!opts.force)
      throw new ApiError(
        'connect_conflict',
        `${manifest.path} changed since Connect wrote it (${manifest.connected_at}); undoing now would lose those changes. Nothing was changed.`,
        `To restore the file as it was before Connect anyway: ${forceHow(tool.id, true)}. The current file is kept beside the backup first.`,
      );
    if (currentBytes !== null) kept = await keepReplaced(deps.configDir, tool.id, currentBytes);
  }
  let action: 'restored' | 'removed';
  if (manifest.existed) {
    await writeSettings(manifest.target, await readPrevious(deps.configDir, tool.id), manifest.mode ?? 0o600);
    action = 'restored';
  } else {
    await removeCreated(manifest.target, manifest.created_dirs);
    action = 'removed';
  }
  await clearBackup(deps.configDir, tool.id);
  return {
    tool: await toolStatus(deps, tool),
    changed: [{ path: manifest.path, action, backup: kept }],
    message:
      (action === 'restored'
        ? `${manifest.path} holds again exactly what it held before Connect.`
        : `${manifest.path} is removed: it did not exist before Connect.`) +
      (kept ? ` The file it replaced is kept in ${kept}.` : ''),
  };
}

/** Whether `target` is the file the manifest says Connect wrote (device and inode), not a link or another file. */
async function isFile(target: string, m: Manifest): Promise<boolean> {
  const st = await fs.lstat(target).catch(() => null);
  return st !== null && st.isFile() && st.dev === m.after_dev && st.ino === m.after_ino;
}

/**
 * Undo trusts nothing of the manifest it did not check (issue 33, item 6: a manifest changed by hand made Undo delete a
 * file outside the tool's settings): it must be this tool's, name the settings file Connect uses for the tool now,
 * and that file (or, for a symlink, the file it points to) as its target; the folders it lists must be folders on the
 * way to that file. Anything else: 409, nothing undone, whatever `force` says.
 */
async function checkManifest(deps: ConnectDeps, tool: FileTool, m: Manifest): Promise<void> {
  const ctx = ctxOf(deps);
  const known = path.resolve((await tool.file(ctx)).path);
  const problems: string[] = [];
  if (m.tool !== tool.id) problems.push(`it is the manifest of "${m.tool}"`);
  if (path.resolve(m.path) !== known) problems.push(`it names ${m.path}, not ${tool.name}'s settings file ${known}`);
  else {
    const target = await fs.realpath(known).catch(() => known);
    if (path.resolve(m.target) !== target) problems.push(`its target ${m.target} is not ${target}`);
  }
  let dir = path.dirname(path.resolve(m.target));
  const onTheWay = new Set<string>();
  for (;;) {
    onTheWay.add(dir);
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const d of m.created_dirs)
    if (!onTheWay.has(path.resolve(d))) problems.push(`it lists ${d}, which is not a folder on the way to ${m.target}`);
  if (problems.length)
    throw new ApiError(
      'connect_conflict',
      `Connect's backup for ${tool.name} does not match ${tool.name}'s settings (${problems.join('; ')}); nothing was undone.`,
      `Restore ${known} by hand if needed; to forget the backup, remove ${backupDir(deps.configDir, tool.id)}.`,
    );
}

/**
 * After Switchboard moved from port `from` to `deps.port`: every tool Connect pointed here (it has a backup to undo)
 * whose setting still points at the old port is pointed at the new one. Only Switchboard's own setting changes (the
 * same format-keeping edit as Connect), the backup of the file as it was before Connect stays, so Undo still puts that
 * back; a file changed since Connect wrote it stays "changed" for Undo (it asks before undoing over the changes).
 */
export async function followPort(deps: ConnectDeps, from: number): Promise<PortFollow[]> {
  const out: PortFollow[] = [];
  const old = { ...ctxOf(deps), port: from, urls: baseUrlsFor(from) };
  const ctx = ctxOf(deps);
  for (const tool of TOOLS) {
    if (tool.kind !== 'file') continue;
    const manifest = await readManifest(deps.configDir, tool.id);
    if (!manifest) continue;
    const left = (why: string): void =>
      void out.push({
        tool: tool.id,
        name: tool.name,
        path: manifest.path,
        outcome: 'left',
        message: `${tool.name} was left as it is: ${why}.`,
      });
    try {
      // A manifest changed by hand names no file to write here (issue 33, item 6): the same check as Undo's.
      await checkManifest(deps, tool, manifest);
    } catch (err) {
      left((err as Error).message.replace(/\.$/, ''));
      continue;
    }
    try {
      const file = await readSettingsFile(manifest.target);
      if (file.bytes === null) {
        left(`${manifest.path} is gone`);
        continue;
      }
      if (tool.read(file.text, old, manifest.path).state !== 'connected') {
        left(`${manifest.path} no longer points at port ${from}`);
        continue;
      }
      const text = tool.write(file.text, ctx, manifest.path);
      if (tool.read(text, ctx, manifest.path).state !== 'connected') throw new CannotEdit('it did not read back');
      const bytes = Buffer.from((file.bom ? '\uFEFF' : '') + text, 'utf8');
      const untouched = sha256(file.bytes) === manifest.after_sha256;
      await writeSettings(file.target, bytes, file.mode ?? 0o600);
      if (untouched) {
        // Still the file Connect wrote: its new bytes and identity (a write replaces the file), so Undo knows it.
        const st = await fs.stat(file.target).catch(() => null);
        await writeManifest(deps.configDir, {
          ...manifest,
          after_sha256: sha256(bytes)!,
          ...(st ? { after_dev: st.dev, after_ino: st.ino } : {}),
        });
      }
      out.push({
        tool: tool.id,
        name: tool.name,
        path: manifest.path,
        outcome: 'moved',
        message: `${tool.name} now points at port ${deps.port} (${manifest.path}).`,
      });
    } catch (err) {
      left(`${manifest.path} could not be rewritten (${(err as Error).message}); connect it again on the Connect page`);
    }
  }
  return out;
}

/** Connects every installed file tool that is not connected and does not point elsewhere (nor is broken). */
export async function connectAll(deps: ConnectDeps): Promise<{ results: ConnectResult[]; skipped: ToolStatus[] }> {
  const results: ConnectResult[] = [];
  const skipped: ToolStatus[] = [];
  for (const tool of TOOLS) {
    if (tool.kind !== 'file') continue;
    const status = await toolStatus(deps, tool);
    if (status.state === 'not_connected') results.push(await connectTool(deps, tool.id));
    else skipped.push(status);
  }
  return { results, skipped };
}

const GLOB = /[*?[\]{}!()+@]/;

/** The model names config.json routes by exact name: rule patterns without glob characters, and app rules' overrides. */
export function routedModelNames(config: unknown): string[] {
  const c = (config && typeof config === 'object' ? config : {}) as {
    routing?: { rules?: { pattern?: unknown }[] };
    app_rules?: { model_override?: unknown }[];
  };
  const names = [
    ...(Array.isArray(c.routing?.rules) ? c.routing.rules.map((r) => r?.pattern) : []),
    ...(Array.isArray(c.app_rules) ? c.app_rules.map((r) => r?.model_override) : []),
  ];
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== '' && !GLOB.test(n)))];
}
