// Which tool calls a person must approve (docs/agents.md, "Approval"): the agent's `approvals`, then config.json's
// `orchestrator.approvals`, then the defaults: tools that only read run (auto), tools that write or reach the network
// ask. In each map an exact tool name wins, then the longest matching glob.
import type { ApprovalPolicy } from '../../shared/config.ts';
import { refMatches } from './mcp/names.ts';

/** Built-in tools that only read: auto by default. The others (write_file, http_get) ask. */
export const READ_ONLY_BUILTINS: ReadonlySet<string> = new Set([
  'current_time',
  'calculator',
  'read_file',
  'list_files',
]);

export type PolicyVerdict = { policy: ApprovalPolicy; source: string };

function lookup(map: Record<string, ApprovalPolicy> | undefined, tool: string): [string, ApprovalPolicy] | null {
  if (!map) return null;
  if (map[tool] !== undefined) return [tool, map[tool]];
  let best: [string, ApprovalPolicy] | null = null;
  for (const [key, policy] of Object.entries(map))
    if (refMatches(key, tool) && (!best || key.length > best[0].length)) best = [key, policy];
  return best;
}

/**
 * The policy of a call to `tool` (a built-in name or `<server>.<tool>`); `readOnly` says whether an MCP tool is
 * marked read-only (its annotations' readOnlyHint, or its server's read_only).
 */
export function policyFor(
  tool: string,
  agent: Record<string, ApprovalPolicy> | undefined,
  global: Record<string, ApprovalPolicy> | undefined,
  readOnly: boolean,
): PolicyVerdict {
  const own = lookup(agent, tool);
  if (own) return { policy: own[1], source: `the agent's approvals "${own[0]}"` };
  const all = lookup(global, tool);
  if (all) return { policy: all[1], source: `orchestrator.approvals "${all[0]}" in config.json` };
  if (READ_ONLY_BUILTINS.has(tool) || readOnly) return { policy: 'auto', source: 'the default (it only reads)' };
  return { policy: 'ask', source: 'the default (it writes or reaches the network)' };
}
