// `switchboard mcp list [--json]`, `switchboard mcp import [--from claude-desktop|claude-code|cursor|<file>]` and
// `switchboard mcp enable|disable <name> [--yes]`. They work on config.json directly (a running Switchboard takes a
// change in within a second); `list` also asks a running Switchboard on this machine for each server's state and
// tools, and says so when none answers. `enable` shows what the server runs first, and asks (or needs --yes).
import { createInterface } from 'node:readline/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import { problemToText } from '../../../shared/config.ts';
import {
  MCP_IMPORT_SOURCES,
  type McpImportRequest,
  type McpImportResult,
  type McpOverview,
} from '../../../shared/mcp.ts';
import { readListening } from '../../config/listening.ts';
import { ConfigError, ConfigStore } from '../../config/store.ts';
import { importMcpServers } from './import.ts';
import { launchLine, setServerEnabled } from './launch.ts';
import { ApiError } from '../../errors.ts';

export type CommandOutput = { out: string; err: string; code: number };

/**
 * The port to ask: `--port`, else where the Switchboard of this config says it listens (listening.json: `serve
 * --port N` may override listen_port), else config.json's listen_port.
 */
async function portToAsk(store: ConfigStore, flag: string | undefined): Promise<number> {
  if (flag !== undefined) {
    const port = Number(flag);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new UsageError(`--port must be a whole number from 1 to 65535 (got "${flag}")`);
    return port;
  }
  return (await readListening(store.dir))?.port ?? store.config.listen_port;
}

class UsageError extends Error {}

/** The running server's view (GET /admin/v1/mcp over loopback), or null when none answers in a second. */
async function liveOverview(store: ConfigStore, port: number): Promise<McpOverview | null> {
  try {
    const token = (await fs.readFile(path.join(store.dir, 'admin-token'), 'utf8')).trim();
    const res = await fetch(`http://127.0.0.1:${port}/admin/v1/mcp`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(1000),
    });
    return res.ok ? ((await res.json()) as McpOverview) : null;
  } catch {
    return null;
  }
}

function listText(store: ConfigStore, live: McpOverview | null, port: number): string {
  const servers = Object.entries(store.config.mcp_servers);
  if (servers.length === 0)
    return `no MCP servers in ${store.file}; import them with: switchboard mcp import [--from claude-desktop|claude-code|cursor|<file>]\n`;
  const lines = servers.map(([name, s]) => {
    const state = live?.servers.find((x) => x.name === name);
    const target = s.command !== undefined ? [s.command, ...(s.args ?? [])].join(' ') : s.url;
    const status = !s.enabled ? 'disabled' : state ? state.state : 'unknown';
    const tools = state?.tools ? `${state.tools.length} tools: ${state.tools.map((t) => t.tool).join(', ')}` : '';
    const error = state?.error ? `error: ${state.error}` : '';
    return [name, s.command !== undefined ? 'stdio' : 'http', status, target, tools || error].join('\t');
  });
  const note = live
    ? ''
    : `(state unknown: no Switchboard answered on this machine at port ${port}; servers start on first use; give --port N for a Switchboard started with serve --port N)\n`;
  return `${lines.join('\n')}\n${note}`;
}

function importText(r: McpImportResult): { out: string; err: string } {
  let out = '';
  let err = '';
  for (const f of r.read) err += `read ${f.path}${f.error ? `: ${f.error}` : ''}\n`;
  if (r.read.length === 0) err += 'found none of the known files (Claude Desktop, Claude Code, Cursor)\n';
  for (const i of r.imported) out += `imported ${i.name} (from ${i.from})${i.notes.map((n) => `\n  ${n}`).join('')}\n`;
  for (const s of r.skipped) out += `skipped ${s.name} (from ${s.from}): ${s.reason}\n`;
  if (r.backup) err += `config.json before the import is kept as backup ${r.backup}\n`;
  else if (r.imported.length === 0) err += 'nothing imported; config.json is unchanged\n';
  return { out, err };
}

export async function mcpCommand(
  configPath: string,
  sub: string | undefined,
  flags: { from?: string; json?: boolean; port?: string; yes?: boolean },
  name?: string,
): Promise<CommandOutput> {
  let store: ConfigStore;
  try {
    store = await ConfigStore.open(configPath);
  } catch (err) {
    if (err instanceof ConfigError) return { out: '', err: `${err.message}\n`, code: 2 };
    throw err;
  }
  if (flags.port !== undefined && sub !== 'list') {
    store.close();
    return { out: '', err: `--port goes with "mcp list" (the port of the running Switchboard to ask)\n`, code: 2 };
  }
  if (sub === 'list') {
    let port: number;
    try {
      port = await portToAsk(store, flags.port);
    } catch (err) {
      store.close();
      if (err instanceof UsageError) return { out: '', err: `${err.message}\n`, code: 2 };
      throw err;
    }
    const live = await liveOverview(store, port);
    store.close();
    if (flags.json) {
      const body = live ?? { servers: null, config: store.config.mcp_servers };
      return { out: `${JSON.stringify(body, null, 2)}\n`, err: '', code: 0 };
    }
    return { out: listText(store, live, port), err: '', code: 0 };
  }
  if (sub === 'import') {
    const from = flags.from;
    const req: McpImportRequest =
      from === undefined
        ? {}
        : (MCP_IMPORT_SOURCES as readonly string[]).includes(from)
          ? { from: from as McpImportRequest['from'] }
          : { path: from };
    try {
      const r = await importMcpServers(store, req);
      if (flags.json) return { out: `${JSON.stringify(r, null, 2)}\n`, err: '', code: 0 };
      const missing = req.path !== undefined && r.read.some((f) => f.error);
      return { ...importText(r), code: missing ? 2 : 0 };
    } catch (err) {
      if (err instanceof ConfigError)
        return {
          out: '',
          err: `nothing imported: the result would not be a valid config:\n${err.problems.map((p) => `  - ${problemToText(p)}`).join('\n')}\n`,
          code: 2,
        };
      throw err;
    } finally {
      store.close();
    }
  }
  if (sub === 'enable' || sub === 'disable') {
    try {
      return await enableCommand(store, sub === 'enable', name, flags.yes === true);
    } finally {
      store.close();
    }
  }
  return { out: '', err: `Unknown mcp command "${sub ?? ''}"; use list, import, enable or disable.\n`, code: 2 };
}

/** Asks on the terminal (stdin and stderr a TTY); answers false anywhere else. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** `mcp enable <name>` shows what the server runs and asks first (or takes --yes); `mcp disable <name>` does not ask. */
async function enableCommand(
  store: ConfigStore,
  enabled: boolean,
  name: string | undefined,
  yes: boolean,
): Promise<CommandOutput> {
  const verb = enabled ? 'enable' : 'disable';
  if (!name) return { out: '', err: `usage: switchboard mcp ${verb} <name> (see: switchboard mcp list)\n`, code: 2 };
  const server = Object.hasOwn(store.config.mcp_servers, name) ? store.config.mcp_servers[name] : undefined;
  if (!server)
    return { out: '', err: `no MCP server "${name}" in ${store.file}; see: switchboard mcp list\n`, code: 2 };
  const runs = `${name} runs: ${launchLine(server)}\n`;
  if (enabled && !server.enabled && !yes) {
    process.stderr.write(runs);
    if (!(await confirm(`Enable ${name}? Switchboard will run this when an agent uses its tools [y/N] `)))
      return {
        out: '',
        err: `not enabled. Check what it runs (above); to enable it without being asked: switchboard mcp enable ${name} --yes\n`,
        code: 2,
      };
  }
  try {
    await setServerEnabled(store, name, enabled);
  } catch (err) {
    if (err instanceof ApiError) return { out: '', err: `${err.message}\n`, code: 2 };
    if (err instanceof ConfigError) return { out: '', err: `${name} was not ${verb}d: ${err.message}\n`, code: 2 };
    throw err;
  }
  return { out: `${verb}d ${name}\n`, err: enabled ? runs : '', code: 0 };
}
