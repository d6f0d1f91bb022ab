// One MCP server as Switchboard runs it, on the official client (@modelcontextprotocol/sdk): started on first use
// (a stdio child process, or a streamable HTTP session with the SSE transport as the fallback older servers need),
// its tools listed once per start (again when it says they changed), calls with the server's call_timeout_s and the
// task's abort signal, and stopped after idle_timeout_s without a call. A server that exits, hangs or cannot start
// makes the call fail with an error that says which and why; the next use starts it again.
import os from 'node:os';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../../shared/config.ts';
import type { McpServerState, McpToolInfo } from '../../../shared/mcp.ts';
import { logger } from '../../observability/logger.ts';
import { redact } from '../../observability/redact.ts';
import type { McpToolResult } from './content.ts';
import { NO_PROTECTED_ENV, type ProtectedEnv, refusedText, serverEnvironment } from './env.ts';
import { wireName } from './names.ts';

const STDERR_KEPT = 2000;

// The MCP SDK (~0.5 MB with its dependencies) is loaded when the first server starts, not at Switchboard's start.
type Sdk = typeof import('@modelcontextprotocol/sdk/client/index.js') &
  typeof import('@modelcontextprotocol/sdk/client/sse.js') &
  typeof import('@modelcontextprotocol/sdk/client/stdio.js') &
  typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js') &
  typeof import('@modelcontextprotocol/sdk/types.js');
let sdk: Sdk | null = null;
let loadingSdk: Promise<Sdk> | null = null;
function loadSdk(): Promise<Sdk> {
  return (loadingSdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then((mods) => (sdk = Object.assign({}, ...mods) as Sdk)));
}
/** An MCP error of the SDK with this code (false before the SDK was loaded: no such error can exist yet). */
function isMcpError(err: unknown, code: 'RequestTimeout' | 'ConnectionClosed'): boolean {
  return sdk !== null && err instanceof sdk.McpError && err.code === sdk.ErrorCode[code];
}

export class McpConnection {
  state: McpServerState['state'] = 'stopped';
  error: string | null = null;
  tools: McpToolInfo[] | null = null;
  toolsListedAt: string | null = null;
  startedAt: string | null = null;
  lastUsedAt: string | null = null;
  pid: number | null = null;
  private client: Client | null = null;
  private starting: Promise<Client> | null = null;
  private idle: NodeJS.Timeout | null = null;
  private active = 0;
  private stderr = '';
  /** Set while this side closes the connection on purpose (idle, timeout, config change): not an error. */
  private closing = false;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly version: string,
    /** What of Switchboard's environment the server may never get (env.ts), read at each start. */
    private readonly protectedEnv: () => ProtectedEnv = () => NO_PROTECTED_ENV,
  ) {}

  get transport(): 'stdio' | 'http' {
    return this.config.command !== undefined ? 'stdio' : 'http';
  }

  /** The server's tools (listed at start, cached until it restarts or says they changed). */
  async listTools(signal: AbortSignal): Promise<McpToolInfo[]> {
    const client = await this.ensure(signal);
    if (this.tools) return this.tools;
    const timeout = this.config.call_timeout_s * 1000;
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { signal, timeout });
        for (const t of page.tools) {
          const annotations = (t.annotations ?? {}) as McpToolInfo['annotations'];
          tools.push({
            name: `${this.name}.${t.name}`,
            tool: t.name,
            wire_name: wireName(this.name, t.name),
            title: t.title ?? annotations.title ?? null,
            description: t.description ?? '',
            input_schema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
            read_only: this.config.read_only || annotations.readOnlyHint === true,
            annotations,
          });
        }
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      throw this.failure(err, 'listing its tools');
    } finally {
      this.armIdle();
    }
    this.tools = tools;
    this.toolsListedAt = new Date().toISOString();
    return tools;
  }

  /** Calls a tool; rejects with a readable error (never hangs past call_timeout_s, aborts with the signal). */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult> {
    const client = await this.ensure(signal);
    this.active++;
    this.lastUsedAt = new Date().toISOString();
    if (this.idle) clearTimeout(this.idle);
    try {
      const timeout = this.config.call_timeout_s * 1000;
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout })) as McpToolResult;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const timedOut = isMcpError(err, 'RequestTimeout');
      const e = this.failure(err, `calling ${tool}`);
      // A server that does not answer in time may be stuck: it is stopped, and the next use starts it afresh.
      if (timedOut) {
        await this.stop(`a call took longer than call_timeout_s (${this.config.call_timeout_s} s)`);
        this.error = e.message; // shown with its state until the next start
      }
      throw e;
    } finally {
      this.active--;
      this.armIdle();
    }
  }

  /** Stops the server (a stdio child is ended: stdin closed, then SIGTERM, then SIGKILL). */
  async stop(why: string): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const client = this.client ?? (await this.starting?.catch(() => null)) ?? null;
    this.client = null;
    this.starting = null;
    this.tools = null;
    if (this.state !== 'failed') this.state = 'stopped';
    this.pid = null;
    if (!client) return;
    this.closing = true;
    logger.info(`MCP server "${this.name}" stopped: ${why}`);
    await client.close().catch(() => undefined);
    this.closing = false;
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const s = this.config.idle_timeout_s;
    if (s <= 0 || this.active > 0 || !this.client) return;
    this.idle = setTimeout(() => void this.stop(`idle for ${s} s (idle_timeout_s)`), s * 1000);
    this.idle.unref();
  }

  /** The running client, starting the server if needed; a start is shared and never cut short by one task's stop. */
  private ensure(signal: AbortSignal): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.starting ??= this.start().finally(() => (this.starting = null));
    const starting = this.starting;
    return new Promise<Client>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      starting.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async start(): Promise<Client> {
    this.state = 'starting';
    this.error = null;
    this.stderr = '';
    const timeout = this.config.call_timeout_s * 1000;
    try {
      await loadSdk();
      let client: Client;
      try {
        client = await this.connect(this.makeTransport(false), timeout);
      } catch (err) {
        // Servers of the older HTTP+SSE transport answer a streamable HTTP POST with 404 or 405 (the SDK's advice).
        const code = (err as { code?: unknown }).code;
        if (this.transport !== 'http' || (code !== 404 && code !== 405)) throw err;
        client = await this.connect(this.makeTransport(true), timeout);
      }
      this.client = client;
      this.state = 'running';
      this.startedAt = new Date().toISOString();
      logger.info(`MCP server "${this.name}" started (${this.transport}${this.pid ? `, pid ${this.pid}` : ''})`);
      this.armIdle();
      return client;
    } catch (err) {
      const e = this.failure(err, 'starting');
      this.state = 'failed';
      this.error = e.message;
      throw e;
    }
  }

  /** Connects (the initialize handshake) within `timeout`: only the timeout ends a start, never one task's stop. */
  private async connect(transport: Transport, timeout: number): Promise<Client> {
    const { Client, StdioClientTransport, ToolListChangedNotificationSchema } = sdk as Sdk;
    const client = new Client({ name: 'switchboard', version: this.version }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void (this.tools = null));
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = null;
      this.tools = null;
      this.pid = null;
      if (this.closing) return;
      this.state = 'failed';
      this.error = `the server closed the connection (it exited or crashed)${this.stderrTail()}`;
      logger.warn(`MCP server "${this.name}": ${this.error}`);
    };
    try {
      await client.connect(transport, { timeout });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    if (transport instanceof StdioClientTransport) this.pid = transport.pid;
    return client;
  }

  private makeTransport(sse: boolean): Transport {
    const { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = sdk as Sdk;
    // ${VAR}s expand only for the variables env_passthrough lists, and never for a provider key's (env.ts).
    const se = serverEnvironment(this.config, process.env, this.protectedEnv());
    const x = se.expand;
    const c = this.config;
    type Settings =
      | { command: string; args: string[]; env: Record<string, string>; cwd: string }
      | { url: string; headers: Record<string, string> };
    const settings: Settings =
      c.command !== undefined
        ? {
            command: x(c.command),
            args: (c.args ?? []).map(x),
            env: Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, x(v)])),
            cwd: c.cwd ? x(c.cwd) : os.homedir(),
          }
        : {
            url: x(c.url as string),
            headers: Object.fromEntries(Object.entries(c.headers ?? {}).map(([k, v]) => [k, x(v)])),
          };
    const refused = refusedText(this.name, se.refused);
    if (refused) throw new Error(refused);
    let t: Transport;
    if ('command' in settings) {
      const stdio = new StdioClientTransport({
        command: settings.command,
        args: settings.args,
        // On top of the SDK's minimal environment (HOME, PATH, USER...), never Switchboard's own: the variables
        // env_passthrough lists, then the server's own env.
        env: { ...se.passed, ...settings.env },
        cwd: settings.cwd,
        stderr: 'pipe',
      });
      stdio.stderr?.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-STDERR_KEPT)));
      t = stdio;
    } else {
      const url = new URL(settings.url);
      const headers = settings.headers;
      t = sse
        ? new SSEClientTransport(url, { requestInit: { headers }, eventSourceInit: { fetch: withHeaders(headers) } })
        : new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    }
    if (se.missing.size)
      logger.warn(
        `MCP server "${this.name}": ${[...se.missing].map((v) => `\${${v}}`).join(', ')} not set (used as "")`,
      );
    return t;
  }

  private stderrTail(): string {
    const tail = this.stderr.trim().split('\n').slice(-5).join(' | ');
    return tail ? `; its last output: ${redact(tail).slice(-500)}` : '';
  }

  /** An error that names the server, what it was doing and why it failed, scrubbed of secrets. */
  private failure(err: unknown, doing: string): Error {
    const e = err as NodeJS.ErrnoException & { code?: unknown };
    let why: string;
    if (e?.code === 'ENOENT' && this.transport === 'stdio')
      why = `the command "${this.config.command}" was not found (is it installed and on the PATH?)`;
    else if (isMcpError(err, 'RequestTimeout'))
      why = `no answer within call_timeout_s (${this.config.call_timeout_s} s)`;
    else if (isMcpError(err, 'ConnectionClosed'))
      why = `the server closed the connection (it exited or crashed)${this.stderrTail()}`;
    else {
      const c = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
      const cause = typeof c?.code === 'string' ? c.code : typeof c?.message === 'string' ? c.message : null;
      why = `${e?.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
      if (this.transport === 'stdio') why += this.stderrTail();
    }
    return new Error(redact(`MCP server "${this.name}" failed ${doing}: ${why}`));
  }
}

/** A fetch that adds the configured headers (the SSE transport's GET takes them here, not from requestInit). */
function withHeaders(headers: Record<string, string>): typeof fetch {
  return (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}
