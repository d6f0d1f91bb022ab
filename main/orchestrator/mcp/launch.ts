// What enabling an MCP server makes Switchboard run, in one line a person can check before trusting it (issue 33,
// item 2: a server imported from a project's file is added disabled, and this line is shown before it is enabled),
// and enabling or disabling one server in config.json (the admin API, `switchboard mcp enable|disable`, Settings).
import { maskKey, type McpServerConfig, SECRET_HEADER_NAME } from '../../../shared/config.ts';
import { ApiError } from '../../errors.ts';
import type { RawConfigStore } from './import.ts';

/** A word of a command line as a shell would need it (quoted when it holds anything but plain characters). */
const word = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
const shown = (name: string, v: string): string => (SECRET_HEADER_NAME.test(name) ? maskKey(v) : v);

/**
 * `npx -y @scope/server /data (in /home/me; env NODE_OPTIONS=--require ./x.js, API_KEY=ghp****cdef; passes GITHUB_TOKEN
 * from Switchboard's environment)`, or `https://host/mcp (headers Authorization=Bea****abcd)`: everything that decides
 * what runs, credential-like values masked as the admin API masks them.
 */
export function launchLine(c: McpServerConfig): string {
  const extras: string[] = [];
  let head: string;
  if (c.command !== undefined) {
    head = [c.command, ...(c.args ?? [])].map(word).join(' ');
    if (c.cwd) extras.push(`in ${c.cwd}`);
    const env = Object.entries(c.env ?? {});
    if (env.length) extras.push(`env ${env.map(([k, v]) => `${k}=${shown(k, v)}`).join(', ')}`);
  } else {
    head = c.url ?? '';
    const headers = Object.entries(c.headers ?? {});
    if (headers.length) extras.push(`headers ${headers.map(([k, v]) => `${k}=${shown(k, v)}`).join(', ')}`);
  }
  const pass = c.env_passthrough ?? [];
  if (pass.length) extras.push(`passes ${pass.join(', ')} from Switchboard's environment`);
  return extras.length ? `${head} (${extras.join('; ')})` : head;
}

/** Sets one server's `enabled` in config.json (one validated save); unknown name → ApiError not_found. */
export async function setServerEnabled(store: RawConfigStore, name: string, enabled: boolean): Promise<void> {
  const raw = await store.readRaw();
  const config = raw && typeof raw === 'object' && !Array.isArray(raw) ? structuredClone(raw) : {};
  const servers = (config as { mcp_servers?: unknown }).mcp_servers;
  const server =
    servers && typeof servers === 'object' && Object.hasOwn(servers, name)
      ? (servers as Record<string, unknown>)[name]
      : undefined;
  if (!server || typeof server !== 'object')
    throw new ApiError('not_found', `No MCP server "${name}" in config.json.`, 'GET /admin/v1/mcp lists them.');
  if (
    (server as { enabled?: unknown }).enabled === enabled ||
    ((server as { enabled?: unknown }).enabled === undefined && enabled)
  )
    return;
  (server as Record<string, unknown>).enabled = enabled;
  await store.save(config);
}
