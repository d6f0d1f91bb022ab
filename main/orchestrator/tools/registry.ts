// The tool registry: each built-in tool's schema (sent to the model) and its implementation (input, signal) → text.
import path from 'node:path';
import type { HubTool } from '../../proxy/formats/hub/index.ts';
import { evaluate } from './calculator.ts';
import { listFiles, readFile, writeFile } from './files.ts';
import { httpGet, type HttpGetLimits } from './http-get.ts';

export type ToolContext = { signal: AbortSignal; workspace: string; httpGet: HttpGetLimits };
export type Tool = { schema: HubTool; run: (input: Record<string, unknown>, ctx: ToolContext) => Promise<string> };

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]): HubTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required } },
});
const str = (v: unknown, field: string): string => {
  if (typeof v !== 'string') throw new Error(`${field} must be a string`);
  return v;
};

export const TOOLS: Record<string, Tool> = {
  current_time: {
    schema: fn('current_time', 'The current date and time (ISO 8601 UTC).', {}, []),
    run: async () => new Date().toISOString(),
  },
  calculator: {
    schema: fn(
      'calculator',
      'Evaluates an arithmetic expression: + - * / % ^, parentheses, sqrt, abs, min, max, ln, pi, e.',
      { expression: { type: 'string' } },
      ['expression'],
    ),
    run: async (input) => String(evaluate(str(input.expression, 'expression'))),
  },
  http_get: {
    schema: fn(
      'http_get',
      'Fetches a public web page by URL and returns its status and text.',
      { url: { type: 'string' } },
      ['url'],
    ),
    run: (input, ctx) => httpGet(str(input.url, 'url'), ctx.httpGet, ctx.signal),
  },
  read_file: {
    schema: fn('read_file', "Reads a text file from the agent's workspace.", { path: { type: 'string' } }, ['path']),
    run: (input, ctx) => readFile(ctx.workspace, str(input.path, 'path'), ctx.signal),
  },
  write_file: {
    schema: fn(
      'write_file',
      "Writes a text file in the agent's workspace.",
      { path: { type: 'string' }, content: { type: 'string' } },
      ['path', 'content'],
    ),
    run: (input, ctx) => writeFile(ctx.workspace, str(input.path, 'path'), str(input.content, 'content'), ctx.signal),
  },
  list_files: {
    schema: fn('list_files', "Lists a folder of the agent's workspace.", { path: { type: 'string' } }, []),
    run: (input, ctx) => listFiles(ctx.workspace, input.path === undefined ? '.' : str(input.path, 'path')),
  },
};

export const workspaceFor = (root: string, agentId: string): string => path.join(root, agentId);

/** Runs a tool; rejects when the signal aborts even if the tool itself ignores it. */
export async function runTool(name: string, input: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool "${name}"`);
  ctx.signal.throwIfAborted();
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    tool
      .run(input, ctx)
      .then(resolve, reject)
      .finally(() => ctx.signal.removeEventListener('abort', onAbort));
  });
}
