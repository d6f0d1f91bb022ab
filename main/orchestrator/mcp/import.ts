// Importing MCP servers from the `mcpServers` block other tools keep (docs/agents.md, "MCP tools"), into config.json's
// `mcp_servers`. Where each keeps it (and the shapes, pinned by real files in test/fixtures/mcp/):
// - Claude Desktop: claude_desktop_config.json in ~/Library/Application Support/Claude (macOS), %APPDATA%\Claude
//   (Windows), $XDG_CONFIG_HOME/Claude or ~/.config/Claude (Linux, where community builds keep it);
//   {"mcpServers": {name: {command, args, env}}} beside the app's own "preferences".
// - Claude Code (code.claude.com/docs/en/mcp): ~/.claude.json, its top-level "mcpServers" (user scope) and
//   "projects"[<folder>]."mcpServers" (local scope, for the current folder); entries have "type": "stdio" | "http" |
//   "sse", command/args/env or url/headers. A project's .mcp.json (project scope) only when named by path.
// - Cursor (cursor.com/docs/mcp): ~/.cursor/mcp.json, {"mcpServers": {name: {command, args, env} | {url, headers}}}.
// A file given by path may also be a bare {name: server} map (as atlassian-mcp-server's .mcp.json is). Its servers
// are added disabled, each with the line saying what enabling it runs (launch.ts): a file named by path may come from
// a repository someone else wrote, so nothing of it runs before a person has looked (issue 33, item 2).
// A server whose name exists already is never overwritten: it is reported as skipped.
// Every file is read as another program's (issue 33, item 5): a regular file only (a FIFO is refused at once, never
// waited on), at most MAX_SOURCE_BYTES, within a timeout, one file at a time in this process (three calls on a 150 MB
// ~/.claude.json took RSS to 1 GB), and what a file held is remembered until the file changes (the UI asks every 5 s).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { McpServerSchema, problemToText, describeConfigIssues } from '../../../shared/config.ts';
import { FileRefusedError, readBoundedFile } from '../../config/read-bounded.ts';
import { isProviderKeyVar, referencedVars } from './env.ts';
import { launchLine } from './launch.ts';
import type { McpImportRequest, McpImportResult, McpImportSource, McpSourceFile } from '../../../shared/mcp.ts';
import { MCP_IMPORT_SOURCES } from '../../../shared/mcp.ts';

/** The files a source keeps its servers in, on this platform (the first existing one of each list is read). */
export function sourcePaths(source: McpImportSource, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || env.USERPROFILE || os.homedir();
  switch (source) {
    case 'claude-desktop': {
      if (process.platform === 'darwin')
        return [path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')];
      if (process.platform === 'win32')
        return [
          path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json'),
        ];
      return [path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Claude', 'claude_desktop_config.json')];
    }
    case 'claude-code':
      // The user's own file only. A project's .mcp.json (in a cloned repository, say) is imported only when named by
      // path, and then disabled (issue 33, item 2): as Claude Code asks before trusting a project's servers.
      return [path.join(home, '.claude.json')];
    case 'cursor':
      return [path.join(home, '.cursor', 'mcp.json')];
  }
}

type Found = { source: string; path: string; servers: [string, unknown][]; error: string | null };

/** The largest source file read: Claude Code's ~/.claude.json grows with its history (a few MB is common). */
export const MAX_SOURCE_BYTES = 32 * 1024 * 1024;
const READ_TIMEOUT_MS = 5_000;

/** One read at a time: a large file costs its size several times over while it is parsed. */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

type Parsed = { json: unknown } | { error: string };

/** The file's identity (device, inode, size, times): what it held is read again only when this changed. */
async function identity(file: string): Promise<string | null | { error: string }> {
  try {
    const st = await fs.stat(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { error: `cannot be read: ${(err as Error).message}` };
  }
}

/** The file's JSON, or why not (null: it does not exist). */
function readJson(file: string): Promise<Parsed | null> {
  return oneAtATime(async () => {
    let text: string;
    try {
      text = (await readBoundedFile(file, { maxBytes: MAX_SOURCE_BYTES, timeoutMs: READ_TIMEOUT_MS })).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (err instanceof FileRefusedError) {
        const why = err.message.slice(file.length + 1); // "is 150 MB, more than …", "is not a regular file"
        return {
          error: `${why}; not read${err.reason === 'too_large' ? ' (paste its mcpServers block instead)' : ''}`,
        };
      }
      return { error: `cannot be read: ${(err as Error).message}` };
    }
    try {
      return { json: JSON.parse(text) };
    } catch (err) {
      return { error: `is not JSON: ${(err as Error).message}` };
    }
  });
}

/** The servers each file held when it was last read (never the whole file: ~/.claude.json also holds history). */
const found = new Map<string, { id: string; found: Found | null }>();
const FOUND_KEPT = 32;

/** The servers of one file: `mcpServers` (and, for ~/.claude.json, the current folder's project scope), else a bare map. */
async function readServers(source: string, file: string, cwd: string, bare: boolean): Promise<Found | null> {
  const id = await identity(file);
  if (id === null) return null;
  if (typeof id !== 'string') return { source, path: file, servers: [], error: id.error };
  const key = `${source}\u0000${file}\u0000${cwd}\u0000${bare}`;
  const hit = found.get(key);
  if (hit?.id === id) return hit.found;
  const result = serversOf(source, file, cwd, bare, await readJson(file));
  found.delete(key);
  if (found.size >= FOUND_KEPT) found.delete(found.keys().next().value as string);
  found.set(key, { id, found: result });
  return result;
}

function serversOf(source: string, file: string, cwd: string, bare: boolean, read: Parsed | null): Found | null {
  if (read === null) return null;
  if ('error' in read) return { source, path: file, servers: [], error: read.error };
  const json = read.json;
  if (!isObject(json)) return { source, path: file, servers: [], error: 'is not a JSON object' };
  const servers: [string, unknown][] = [];
  if (isObject(json.mcpServers)) servers.push(...Object.entries(json.mcpServers));
  const project = isObject(json.projects) ? json.projects[cwd] : undefined;
  if (isObject(project) && isObject(project.mcpServers)) servers.push(...Object.entries(project.mcpServers));
  if (
    !('mcpServers' in json) &&
    bare &&
    Object.values(json).every((v) => isObject(v) && ('command' in v || 'url' in v))
  )
    servers.push(...Object.entries(json));
  if (servers.length === 0 && !('mcpServers' in json))
    return { source, path: file, servers, error: 'has no "mcpServers" block' };
  return { source, path: file, servers, error: null };
}

/** What each known source holds now (GET /admin/v1/mcp's `sources`). */
export async function sourceFiles(env: NodeJS.ProcessEnv, cwd: string): Promise<McpSourceFile[]> {
  const out: McpSourceFile[] = [];
  for (const source of MCP_IMPORT_SOURCES) {
    for (const p of sourcePaths(source, env)) {
      const found = await readServers(source, p, cwd, false);
      out.push({
        source,
        path: p,
        exists: found !== null,
        servers: found && !found.error ? found.servers.map(([n]) => n) : null,
        error: found?.error ?? null,
      });
    }
  }
  return out;
}

const KNOWN = new Set([
  'type',
  'transport',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'disabled',
  'enabled',
  'env_passthrough',
]);

/** `my server!` → `my-server`: what MCP_SERVER_NAME takes (letters, digits, "-", single "_"), at most 32. */
export function serverName(original: string): string {
  const name = original
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 32)
    .replace(/_+$/, '');
  return name || 'server';
}

/** One entry of an mcpServers block as a server of config.json, with notes on what was not carried over. */
export function convertServer(raw: unknown): { server: Record<string, unknown>; notes: string[] } | { reason: string } {
  if (!isObject(raw)) return { reason: 'is not an object' };
  const notes: string[] = [];
  const type = typeof raw.type === 'string' ? raw.type : typeof raw.transport === 'string' ? raw.transport : undefined;
  const server: Record<string, unknown> = {};
  if (typeof raw.command === 'string') {
    server.command = raw.command;
    if (raw.args !== undefined) server.args = Array.isArray(raw.args) ? raw.args.map(String) : raw.args;
    if (isObject(raw.env) && Object.keys(raw.env).length)
      server.env = Object.fromEntries(Object.entries(raw.env).map(([k, v]) => [k, String(v)]));
    if (typeof raw.cwd === 'string') server.cwd = raw.cwd;
  } else if (typeof raw.url === 'string') {
    server.url = raw.url;
    if (isObject(raw.headers) && Object.keys(raw.headers).length)
      server.headers = Object.fromEntries(Object.entries(raw.headers).map(([k, v]) => [k, String(v)]));
    if (type === 'sse') notes.push('an SSE server: Switchboard tries streamable HTTP first, then the SSE transport');
  } else {
    return { reason: 'has neither "command" nor "url"' };
  }
  if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'].includes(type))
    return {
      reason: `has transport "${type}", which Switchboard does not speak (stdio, streamable HTTP and SSE only)`,
    };
  // ${VAR} references: the variables are listed in env_passthrough (a provider key's never), so they expand as they
  // did in the tool they come from; the notes say which.
  const texts = [
    ...[server.command, server.cwd, server.url].filter((v): v is string => typeof v === 'string'),
    ...(Array.isArray(server.args) ? server.args.filter((v): v is string => typeof v === 'string') : []),
    ...Object.values((server.env ?? {}) as Record<string, string>),
    ...Object.values((server.headers ?? {}) as Record<string, string>),
  ];
  const listed = Array.isArray(raw.env_passthrough) ? raw.env_passthrough.filter((v) => typeof v === 'string') : [];
  const vars = [...new Set([...listed, ...texts.flatMap(referencedVars)])];
  const keys = vars.filter(isProviderKeyVar);
  const passed = vars.filter((v) => !isProviderKeyVar(v));
  if (passed.length) {
    server.env_passthrough = passed;
    notes.push(
      `env_passthrough: ${passed.join(', ')} (its ${passed.map((v) => `\${${v}}`).join(', ')} expand from Switchboard's environment)`,
    );
  }
  if (keys.length)
    notes.push(
      `refers to ${keys.map((v) => `\${${v}}`).join(', ')}, a provider key's variable: Switchboard never gives it to an ` +
        "MCP server, so the server will not start until its value is put in the server's own env or headers",
    );
  if (raw.disabled === true || raw.enabled === false) {
    server.enabled = false;
    notes.push('disabled there, so imported disabled');
  }
  for (const k of Object.keys(raw))
    if (!KNOWN.has(k)) notes.push(`"${k}" not imported: Switchboard has no such setting`);
  const parsed = McpServerSchema.safeParse(server);
  if (!parsed.success)
    return { reason: describeConfigIssues(parsed.error.issues, server).map(problemToText).join('; ') };
  return { server, notes };
}

export type RawConfigStore = {
  readRaw(): Promise<unknown>;
  save(input: unknown): Promise<{ backup: { id: string } | null }>;
};

/**
 * Reads the asked sources (none asked: every known one) and adds their servers to config.json's `mcp_servers`
 * in one save (validated, with a backup of what it replaces). Names already there are skipped and said.
 */
export async function importMcpServers(
  store: RawConfigStore,
  req: McpImportRequest,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<McpImportResult> {
  const found: Found[] = [];
  const byPath = req.path !== undefined;
  if (req.mcpServers)
    found.push({ source: '(pasted)', path: '(pasted)', servers: Object.entries(req.mcpServers), error: null });
  else if (req.path) {
    const file = path.resolve(cwd, req.path);
    found.push(
      (await readServers(file, file, cwd, true)) ?? { source: file, path: file, servers: [], error: 'does not exist' },
    );
  } else {
    for (const source of req.from ? [req.from] : MCP_IMPORT_SOURCES)
      for (const p of sourcePaths(source, env)) {
        const f = await readServers(source, p, cwd, false);
        if (f) found.push(f);
      }
  }
  const raw = await store.readRaw();
  const config = isObject(raw) ? structuredClone(raw) : {};
  const existing = isObject(config.mcp_servers) ? { ...config.mcp_servers } : {};
  const result: McpImportResult = {
    read: found.map((f) => ({ source: f.source, path: f.path, error: f.error })),
    imported: [],
    skipped: [],
    backup: null,
  };
  for (const f of found) {
    for (const [original, entry] of f.servers) {
      const name = serverName(original);
      if (name in existing) {
        const mine = result.imported.find((i) => i.name === name);
        const reason = mine
          ? `a server named "${name}" was imported from ${mine.from} just before; not overwritten`
          : `a server named "${name}" is in config.json already; not overwritten (remove or rename it there first)`;
        result.skipped.push({ name: original, from: f.source, reason });
        continue;
      }
      const c = convertServer(entry);
      if ('reason' in c) {
        result.skipped.push({ name: original, from: f.source, reason: c.reason });
        continue;
      }
      if (name !== original)
        c.notes.unshift(`renamed from "${original}" (server names take letters, digits, "-", "_")`);
      if (byPath && c.server.enabled !== false) {
        c.server.enabled = false;
        c.notes.push(
          `imported disabled: it comes from a file named by path, which may be a project's; enabling it runs ` +
            `${launchLine(McpServerSchema.parse(c.server))} (switchboard mcp enable ${name}, or Enable in Settings)`,
        );
      }
      existing[name] = c.server;
      result.imported.push({ name, from: f.source, original_name: original, notes: c.notes });
    }
  }
  if (result.imported.length) {
    config.mcp_servers = existing;
    const saved = await store.save(config);
    result.backup = saved.backup?.id ?? null;
  }
  return result;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
