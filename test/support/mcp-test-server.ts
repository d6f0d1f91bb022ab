// A small MCP server over stdio for tests (the official SDK's McpServer), with the failures real servers have:
//   echo {text}      → the text (read-only)
//   note {text}      → appends the text to $MCP_TEST_LOG and answers "noted" (writes: approval asks by default)
//   slow {ms}        → answers after ms; a cancellation (notifications/cancelled) is written to $MCP_TEST_LOG
//   hang             → never answers
//   crash            → exits (code 3) in the middle of the call, after a line on stderr
// With MCP_TEST_LAUNCH=1 it also writes its arguments and environment to $MCP_TEST_LOG when it starts.
// Run as: node --import tsx test/support/mcp-test-server.ts (cwd: the repository, so tsx resolves).
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const log = (line: string) => {
  if (process.env.MCP_TEST_LOG) fs.appendFileSync(process.env.MCP_TEST_LOG, `${line}\n`);
};

const server = new McpServer({ name: 'switchboard-test', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Answers the text it is given.',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'note',
  { description: 'Writes a note.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: false } },
  async ({ text }) => {
    log(`note ${text}`);
    return { content: [{ type: 'text', text: 'noted' }] };
  },
);

server.registerTool(
  'slow',
  {
    description: 'Answers after ms milliseconds.',
    inputSchema: { ms: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ ms }, extra) =>
    new Promise((resolve) => {
      const t = setTimeout(() => resolve({ content: [{ type: 'text', text: `slept ${ms} ms` }] }), ms);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(t);
        log(`cancelled slow ${extra.requestId}`);
      });
    }),
);

server.registerTool('hang', { description: 'Never answers.', annotations: { readOnlyHint: true } }, async () => {
  log('hang called');
  return new Promise(() => {});
});

server.registerTool('crash', { description: 'Exits mid-call.', annotations: { readOnlyHint: true } }, async () => {
  process.stderr.write('test server: crashing on purpose\n');
  log('crash called');
  setTimeout(() => process.exit(3), 20);
  return new Promise(() => {});
});

log(`started ${process.pid}`);
// What it was started with (MCP_TEST_LAUNCH=1): the tests of what a server may get of Switchboard's environment.
if (process.env.MCP_TEST_LAUNCH === '1')
  log(`launched ${JSON.stringify({ argv: process.argv.slice(2), env: process.env })}`);
await server.connect(new StdioServerTransport());
