// MCP servers in the admin API and the UI (docs/agents.md, "MCP tools"): each server's state and tools, and importing the
// `mcpServers` block of Claude Desktop, Claude Code and Cursor.
import { z } from 'zod';

/** One tool of a server, as the agents are offered it. */
export type McpToolInfo = {
  /** `<server>.<tool>`: what an agent's `tools` and `approvals` name. */
  name: string;
  /** The server's own name for it. */
  tool: string;
  /** The function name the model sees (`<server>__<tool>`; see docs/agents.md for names that do not fit). */
  wire_name: string;
  title: string | null;
  description: string;
  input_schema: Record<string, unknown>;
  /** The server is marked read_only, or the tool says readOnlyHint: its approval policy is `auto` by default. */
  read_only: boolean;
  annotations: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
};

export const MCP_STATES = ['disabled', 'stopped', 'starting', 'running', 'failed'] as const;

export type McpServerState = {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line (stdio) or the URL (http), without env or headers. */
  target: string;
  /**
   * What enabling (or using) it runs, in one line a person checks before trusting it: the command line with its folder,
   * environment and env_passthrough (credential-like values masked), or the URL with its headers.
   */
  launch: string;
  enabled: boolean;
  state: (typeof MCP_STATES)[number];
  /** Why it is failed (null otherwise). */
  error: string | null;
  pid: number | null;
  started_at: string | null;
  last_used_at: string | null;
  /** null until the server has been started once (tools are listed at start). */
  tools: McpToolInfo[] | null;
  tools_listed_at: string | null;
  idle_timeout_s: number;
  call_timeout_s: number;
  read_only: boolean;
};

/** Where another tool keeps its `mcpServers` block. */
export const MCP_IMPORT_SOURCES = ['claude-desktop', 'claude-code', 'cursor'] as const;
export type McpImportSource = (typeof MCP_IMPORT_SOURCES)[number];

export type McpSourceFile = {
  source: McpImportSource;
  path: string;
  exists: boolean;
  /** Server names found there (null when the file is missing or does not parse). */
  servers: string[] | null;
  error: string | null;
};

/** GET /admin/v1/mcp */
export type McpOverview = { servers: McpServerState[]; sources: McpSourceFile[] };

/** POST /admin/v1/mcp/import: from a known source, a file, or a pasted `mcpServers` block. */
export const McpImportRequestSchema = z
  .strictObject({
    from: z.enum(MCP_IMPORT_SOURCES).optional(),
    path: z.string().min(1).optional(),
    mcpServers: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((r) => [r.from, r.path, r.mcpServers].filter((v) => v !== undefined).length <= 1, {
    message: 'give one of "from", "path" or "mcpServers" (none: every known source)',
    path: ['from'],
  });
export type McpImportRequest = z.infer<typeof McpImportRequestSchema>;

/** What an import did, server by server. */
export type McpImportResult = {
  /** The files read (a pasted block is "(pasted)"). */
  read: { source: string; path: string; error: string | null }[];
  imported: { name: string; from: string; original_name: string; notes: string[] }[];
  /** Not imported: a server of that name exists already (never overwritten), or the entry is not usable. */
  skipped: { name: string; from: string; reason: string }[];
  /** The config.json backup kept before the save (null when nothing was imported). */
  backup: string | null;
};
