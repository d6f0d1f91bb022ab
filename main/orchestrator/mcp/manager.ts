// The MCP servers of config.json's `mcp_servers`: one connection per server (connection.ts), the tools an agent's
// allow list offers, calls, states for the admin API, and the servers' secrets (env values and headers with
// credential-like names) registered with the scrubber of error texts.
import { SECRET_HEADER_NAME, type McpServerConfig } from '../../../shared/config.ts';
import type { McpServerState, McpToolInfo } from '../../../shared/mcp.ts';
import { addSecretSource } from '../../observability/redact.ts';
import { McpConnection } from './connection.ts';
import type { McpToolResult } from './content.ts';
import type { ProtectedEnv } from './env.ts';
import { launchLine } from './launch.ts';
import { expandVars, refMatches, serversOf, splitToolRef } from './names.ts';

export type McpDeps = {
  /** config.json's `mcp_servers`, read at each use (a reload applies to the next call). */
  servers: () => Record<string, McpServerConfig>;
  /** Sent to servers as the client's version. */
  version: string;
  /** What of Switchboard's environment no server may get (env.ts): read when a server starts. */
  protectedEnv?: () => ProtectedEnv;
};

/** A server an agent's allow list names whose tools cannot be offered, and why. */
export type McpUnavailable = { server: string; error: string; entries: string[] };

export class McpManager {
  private readonly conns = new Map<string, McpConnection>();
  private readonly forgetSecrets: () => void;

  constructor(private readonly deps: McpDeps) {
    this.forgetSecrets = addSecretSource(() => this.secrets());
  }

  /** The configured servers' names. */
  names(): string[] {
    return Object.keys(this.deps.servers());
  }

  /** After a config change: servers removed, disabled or changed are stopped (a changed one restarts on next use). */
  async configure(): Promise<void> {
    const servers = this.deps.servers();
    for (const [name, c] of this.conns) {
      const now = servers[name];
      if (now && now.enabled && JSON.stringify(now) === JSON.stringify(c.config)) continue;
      this.conns.delete(name);
      await c.stop(now ? (now.enabled ? 'its settings changed' : 'disabled') : 'removed from mcp_servers');
    }
  }

  states(): McpServerState[] {
    return Object.entries(this.deps.servers()).map(([name, cfg]) => {
      const c = this.conns.get(name);
      const live = c && JSON.stringify(c.config) === JSON.stringify(cfg) ? c : null;
      return {
        name,
        transport: cfg.command !== undefined ? 'stdio' : 'http',
        target: cfg.command !== undefined ? [cfg.command, ...(cfg.args ?? [])].join(' ') : (cfg.url ?? ''),
        launch: launchLine(cfg),
        enabled: cfg.enabled,
        state: cfg.enabled ? (live?.state ?? 'stopped') : 'disabled',
        error: live?.error ?? null,
        pid: live?.pid ?? null,
        started_at: live?.startedAt ?? null,
        last_used_at: live?.lastUsedAt ?? null,
        tools: live?.tools ?? null,
        tools_listed_at: live?.toolsListedAt ?? null,
        idle_timeout_s: cfg.idle_timeout_s,
        call_timeout_s: cfg.call_timeout_s,
        read_only: cfg.read_only,
      };
    });
  }

  /** Starts a server if needed and lists its tools (the admin API's refresh). */
  async refresh(name: string, signal: AbortSignal): Promise<McpToolInfo[]> {
    return this.connection(name).listTools(signal);
  }

  /**
   * The MCP tools an agent's `tools` list allows (entries with a dot: `fs.read_file`, `github.*`), listing each named
   * server's tools (starting it if needed), and the servers that could not be asked, with why.
   */
  async toolsFor(
    entries: readonly string[],
    signal: AbortSignal,
  ): Promise<{ tools: McpToolInfo[]; unavailable: McpUnavailable[] }> {
    const names = this.names();
    const wanted = new Map<string, string[]>();
    const unavailable: McpUnavailable[] = [];
    for (const entry of entries) {
      const ref = splitToolRef(entry);
      if (!ref) continue;
      const servers = serversOf(entry, names);
      if (servers.length === 0)
        unavailable.push({
          server: ref.server,
          error: 'no such server in config.json (mcp_servers)',
          entries: [entry],
        });
      for (const s of servers) wanted.set(s, [...(wanted.get(s) ?? []), entry]);
    }
    const tools: McpToolInfo[] = [];
    const listed = await Promise.allSettled([...wanted.keys()].map((s) => this.connection(s).listTools(signal)));
    [...wanted.entries()].forEach(([server, allow], i) => {
      const r = listed[i] as PromiseSettledResult<McpToolInfo[]>;
      if (r.status === 'rejected') {
        unavailable.push({ server, error: (r.reason as Error).message, entries: allow });
        return;
      }
      for (const t of r.value) if (allow.some((e) => refMatches(e, t.name))) tools.push(t);
    });
    signal.throwIfAborted();
    return { tools, unavailable };
  }

  call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult> {
    return this.connection(server).call(tool, args, signal);
  }

  async close(): Promise<void> {
    this.forgetSecrets();
    const all = [...this.conns.values()];
    this.conns.clear();
    await Promise.allSettled(all.map((c) => c.stop('Switchboard is stopping')));
  }

  /** The connection of a configured, enabled server (a new one when its settings changed). */
  private connection(name: string): McpConnection {
    const cfg = this.deps.servers()[name];
    if (!cfg) throw new Error(`MCP server "${name}" is not in config.json (mcp_servers)`);
    if (!cfg.enabled) throw new Error(`MCP server "${name}" is disabled in config.json (mcp_servers.${name}.enabled)`);
    const c = this.conns.get(name);
    if (c && JSON.stringify(c.config) === JSON.stringify(cfg)) return c;
    if (c) void c.stop('its settings changed');
    const next = new McpConnection(name, cfg, this.deps.version, this.deps.protectedEnv);
    this.conns.set(name, next);
    return next;
  }

  /** Env values and header values with credential-like names, as written and with ${VAR}s expanded. */
  private *secrets(): Iterable<string> {
    for (const s of Object.values(this.deps.servers())) {
      for (const map of [s.env, s.headers]) {
        for (const [k, v] of Object.entries(map ?? {})) {
          if (!SECRET_HEADER_NAME.test(k)) continue;
          // A value that is only a ${VAR} reference is not a secret (errors may name it); its value is.
          if (!/^\$\{[^}]+\}$/.test(v)) yield v;
          yield expandVars(v, process.env);
        }
      }
    }
  }
}
