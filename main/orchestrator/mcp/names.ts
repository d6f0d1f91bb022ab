// MCP tool names: what an agent's `tools` list says (`fs.read_file`, `github.*`), what the model sees on the wire
// (`fs__read_file`: OpenAI and Anthropic take function names matching ^[a-zA-Z0-9_-]{1,64}$, so the dot cannot go
// out), and `${VAR}` references in a server's settings.
import { createHash } from 'node:crypto';
import micromatch from 'micromatch';

/** Between the server and the tool on the wire. Server names cannot hold it (MCP_SERVER_NAME), so it splits once. */
export const WIRE_SEPARATOR = '__';
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The function name the model sees for `<server>.<tool>`: `<server>__<tool>` when that is a valid name of 64
 * characters at most; else its valid characters, cut to fit, then `_` and 8 hex digits of a hash of the real name
 * (the same tool always gets the same name, so a conversation's earlier calls still match).
 */
export function wireName(server: string, tool: string): string {
  const plain = `${server}${WIRE_SEPARATOR}${tool}`;
  if (WIRE_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(`${server}.${tool}`).digest('hex').slice(0, 8);
  const safe = `${server}${WIRE_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return `${safe.slice(0, 64 - 9)}_${hash}`;
}

/** `fs.read_file` → { server: 'fs', tool: 'read_file' } (split at the first dot); null for a built-in tool's name. */
export function splitToolRef(ref: string): { server: string; tool: string } | null {
  const dot = ref.indexOf('.');
  if (dot <= 0 || dot === ref.length - 1) return null;
  return { server: ref.slice(0, dot), tool: ref.slice(dot + 1) };
}

const GLOB = { dot: true } as const;

/** Whether an allow-list or approvals entry (a name or a glob: `github.*`, `fs.read_*`, `*`) covers this tool. */
export function refMatches(entry: string, name: string): boolean {
  return entry === name || micromatch.isMatch(name, entry, GLOB);
}

/** The configured servers an allow-list entry names (its part before the first dot, which may be a glob). */
export function serversOf(entry: string, servers: readonly string[]): string[] {
  const ref = splitToolRef(entry);
  if (!ref) return [];
  return servers.filter((s) => s === ref.server || micromatch.isMatch(s, ref.server, GLOB));
}

/**
 * `${VAR}`, `${VAR:-default}` (Claude Code's .mcp.json) and `${env:VAR}` (Cursor's mcp.json) replaced by `env`'s values,
 * whatever the variable: what the scrubber looks for in error texts (manager.ts). What a server itself gets is
 * decided by env.ts (only its env_passthrough, never a provider key). An unset variable without a default becomes ""
 * and is reported.
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv, missing?: Set<string>): string {
  return text.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def?: string) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (def !== undefined) return def;
    missing?.add(name);
    return '';
  });
}
