// Where a request's input tokens went (docs/insight.md, "Where the tokens went"): a captured request's body split into system
// prompt, tool definitions (per tool, and per MCP server for tools named `mcp__<server>__<tool>`), tool results (per
// tool), conversation, and the rest (the JSON around them, the request's parameters). Each part is estimated the way
// limits estimate a request (its bytes / 4: main/proxy/limits.ts); when the provider reported the request's input
// tokens, every part is scaled so the split adds up to them (the estimate says where, the provider how many).
import type { AttributionSplit } from '../../shared/insight.ts';

/**
 * Tokens of a text of `bytes` bytes, estimated as limits estimate a request (main/proxy/limits.ts estimateTokens; the
 * unit test holds the two equal). Not imported from there: main/proxy/ holds the capture store through the engine, so
 * main/insight/ importing main/proxy/ would close a cycle between the two rooms.
 */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const bytes = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

/** The MCP server a tool name belongs to (`mcp__<server>__<tool>`, Claude Code's naming), or null. */
export function mcpServerOf(tool: string): string | null {
  const m = /^mcp__(.+?)__./.exec(tool);
  return m ? m[1]! : null;
}

/** The wire format of a front door path (the capture's). */
export function formatOfPath(path: string): 'anthropic' | 'openai' | 'responses' | 'gemini' | null {
  const p = path.split('?')[0]!;
  if (p.endsWith('/messages')) return 'anthropic';
  if (p.endsWith('/chat/completions') || p.endsWith('/api/chat')) return 'openai';
  if (p.endsWith('/responses')) return 'responses';
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(p)) return 'gemini';
  return null;
}

/** Byte counts per part, before scaling. */
type Parts = { system: number; tools: Map<string, number>; results: Map<string, number>; conversation: number };

function add(m: Map<string, number>, k: string, n: number): void {
  m.set(k, (m.get(k) ?? 0) + n);
}

function partsOf(format: NonNullable<ReturnType<typeof formatOfPath>>, body: Json): Parts {
  const p: Parts = { system: 0, tools: new Map(), results: new Map(), conversation: 0 };
  const names = new Map<string, string>(); // tool call id → tool name
  if (format === 'anthropic') {
    p.system += bytes(body.system);
    for (const t of arr(body.tools)) add(p.tools, String(obj(t)?.name ?? obj(t)?.type ?? 'unnamed'), bytes(t));
    for (const m of arr(body.messages)) {
      const content = obj(m)?.content;
      if (typeof content === 'string') {
        p.conversation += bytes(content);
        continue;
      }
      for (const b of arr(content)) {
        const block = obj(b);
        if (block?.type === 'tool_use' && typeof block.id === 'string') names.set(block.id, String(block.name));
        if (block?.type === 'tool_result')
          add(p.results, names.get(String(block.tool_use_id)) ?? 'unknown tool', bytes(block.content));
        else p.conversation += bytes(b);
      }
    }
  } else if (format === 'openai') {
    for (const t of arr(body.tools)) add(p.tools, String(obj(obj(t)?.function)?.name ?? 'unnamed'), bytes(t));
    for (const m of arr(body.messages)) {
      const msg = obj(m);
      if (!msg) continue;
      for (const c of arr(msg.tool_calls)) {
        const call = obj(c);
        if (typeof call?.id === 'string') names.set(call.id, String(obj(call.function)?.name));
      }
      if (msg.role === 'system' || msg.role === 'developer') p.system += bytes(msg.content);
      else if (msg.role === 'tool')
        add(p.results, names.get(String(msg.tool_call_id)) ?? 'unknown tool', bytes(msg.content));
      else p.conversation += bytes(m);
    }
  } else if (format === 'responses') {
    p.system += bytes(body.instructions);
    for (const t of arr(body.tools)) add(p.tools, String(obj(t)?.name ?? obj(t)?.type ?? 'unnamed'), bytes(t));
    const input = body.input;
    if (typeof input === 'string') p.conversation += bytes(input);
    for (const it of arr(input)) {
      const item = obj(it);
      if (item?.type === 'function_call' && typeof item.call_id === 'string')
        names.set(item.call_id, String(item.name));
      if (item?.type === 'function_call_output')
        add(p.results, names.get(String(item.call_id)) ?? 'unknown tool', bytes(item.output));
      else if (item?.role === 'system' || item?.role === 'developer') p.system += bytes(item.content);
      else p.conversation += bytes(it);
    }
  } else {
    p.system += bytes(body.systemInstruction ?? body.system_instruction);
    for (const t of arr(body.tools))
      for (const d of arr(obj(t)?.functionDeclarations ?? obj(t)?.function_declarations))
        add(p.tools, String(obj(d)?.name ?? 'unnamed'), bytes(d));
    for (const c of arr(body.contents)) {
      for (const part of arr(obj(c)?.parts)) {
        const fr = obj(obj(part)?.functionResponse ?? obj(part)?.function_response);
        if (fr) add(p.results, String(fr.name ?? 'unknown tool'), bytes(fr.response));
        else p.conversation += bytes(part);
      }
    }
  }
  return p;
}

/**
 * The split of one request's input tokens. `body` is the request as the client sent it; `exact` the input tokens the
 * provider reported (prompt_tokens in the hub's sense: cache reads and writes included), or null: then the split is the estimate.
 */
export function attribute(path: string, bodyText: string, exact: number | null): AttributionSplit | null {
  const format = formatOfPath(path);
  if (!format) return null;
  let body: Json | null;
  try {
    body = obj(JSON.parse(bodyText));
  } catch {
    return null;
  }
  if (!body) return null;
  const p = partsOf(format, body);
  const totalBytes = Buffer.byteLength(bodyText);
  const estimated = estimateTokens(totalBytes);
  const input = exact ?? estimated;
  // Each part's share of the body's bytes, in tokens of `input`.
  const scale = totalBytes === 0 ? 0 : input / totalBytes;
  const tok = (n: number) => Math.round(n * scale);
  const tools: Record<string, number> = {};
  const servers: Record<string, number> = {};
  let toolSum = 0;
  for (const [name, n] of p.tools) {
    tools[name] = tok(n);
    toolSum += n;
    const server = mcpServerOf(name);
    if (server !== null) servers[server] = (servers[server] ?? 0) + tok(n);
  }
  const results: Record<string, number> = {};
  let resultSum = 0;
  for (const [name, n] of p.results) {
    results[name] = tok(n);
    resultSum += n;
  }
  const system = tok(p.system);
  const conversation = tok(p.conversation);
  const toolDefs = tok(toolSum);
  const toolResults = tok(resultSum);
  return {
    input_tokens: input,
    exact: exact !== null,
    system,
    tool_definitions: toolDefs,
    tool_results: toolResults,
    conversation,
    other: Math.max(0, input - system - toolDefs - toolResults - conversation),
    tools,
    mcp_servers: servers,
    results,
  };
}

/** The sum of splits (an empty one for none). */
export function sumSplits(splits: readonly AttributionSplit[]): AttributionSplit {
  const out: AttributionSplit = {
    input_tokens: 0,
    exact: splits.length > 0 && splits.every((s) => s.exact),
    system: 0,
    tool_definitions: 0,
    tool_results: 0,
    conversation: 0,
    other: 0,
    tools: {},
    mcp_servers: {},
    results: {},
  };
  const addAll = (to: Record<string, number>, from: Record<string, number>) => {
    for (const [k, v] of Object.entries(from)) to[k] = (to[k] ?? 0) + v;
  };
  for (const s of splits) {
    out.input_tokens += s.input_tokens;
    out.system += s.system;
    out.tool_definitions += s.tool_definitions;
    out.tool_results += s.tool_results;
    out.conversation += s.conversation;
    out.other += s.other;
    addAll(out.tools, s.tools);
    addAll(out.mcp_servers, s.mcp_servers);
    addAll(out.results, s.results);
  }
  return out;
}
