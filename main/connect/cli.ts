// `switchboard connect`: the table of tools (no tool), `connect <tool> [--force]`, `connect <tool> --undo [--force]`,
// `connect --all`. It edits the tools' files directly, so it works whether or not the server runs; the port is
// config.json's listen_port (11434 when the file has none).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConnectResult, ToolStatus } from '../../shared/connect.ts';
import { ApiError } from '../errors.ts';
import { connectAll, connectOverview, connectTool, routedModelNames, undoTool, type ConnectDeps } from './connect.ts';

export type ConnectFlags = { force?: boolean; undo?: boolean; all?: boolean; json?: boolean };
export type CommandOutput = { out: string; err: string; code: number };

/** The port and routed model names from config.json as it is on disk (defaults when it is missing or not JSON). */
async function depsFor(configPath: string): Promise<ConnectDeps> {
  let raw: unknown = null;
  try {
    raw = JSON.parse(await fs.readFile(configPath, 'utf8'));
  } catch {
    // no config yet, or not JSON: the default port
  }
  const port = (raw as { listen_port?: unknown } | null)?.listen_port;
  return {
    configDir: path.dirname(configPath),
    port: Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536 ? (port as number) : 11434,
    models: routedModelNames(raw),
  };
}

const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s.padEnd(n));

function table(tools: ToolStatus[]): string {
  const rows = tools.map((t) => [
    t.id,
    t.state,
    t.app,
    t.kind === 'manual' ? t.detail : `${t.files[0]?.path}: ${t.detail}`,
  ]);
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['TOOL', 'STATE', 'APP'][i]!.length) + 2);
  return [['TOOL', 'STATE', 'APP', 'SETTINGS'], ...rows]
    .map((r) => r.map((c, i) => (i < 3 ? pad(c, w[i]!) : c)).join(''))
    .join('\n');
}

const changedLines = (r: ConnectResult) =>
  r.changed.map((c) => `  ${c.action} ${c.path}${c.backup ? ` (kept: ${c.backup})` : ''}\n`).join('');

export async function connectCommand(
  configPath: string,
  tool: string | undefined,
  flags: ConnectFlags,
): Promise<CommandOutput> {
  const deps = await depsFor(configPath);
  try {
    if (flags.all) {
      if (tool || flags.undo)
        return { out: '', err: 'usage: switchboard connect --all (no tool, no --undo)\n', code: 2 };
      const { results, skipped } = await connectAll(deps);
      let out = results.map((r) => `${r.message}\n${changedLines(r)}`).join('');
      if (!results.length) out += 'no installed tool was waiting to be connected\n';
      const err = skipped
        .filter((s) => s.state !== 'not_installed')
        .map((s) => `skipped ${s.id}: ${s.state} (${s.detail})\n`)
        .join('');
      return { out, err, code: 0 };
    }
    if (!tool) {
      const overview = await connectOverview(deps);
      if (flags.json) return { out: `${JSON.stringify(overview, null, 2)}\n`, err: '', code: 0 };
      const u = overview.base_urls;
      const out =
        `${table(overview.tools)}\n\nBase URLs: OpenAI ${u.openai}  Anthropic ${u.anthropic}  Gemini ${u.gemini}  ` +
        `Ollama ${u.ollama}\n`;
      const err =
        'connect one: switchboard connect <tool> [--force]; undo: switchboard connect <tool> --undo; every installed tool: switchboard connect --all\n';
      return { out, err, code: 0 };
    }
    const r = flags.undo
      ? await undoTool(deps, tool, { force: flags.force })
      : await connectTool(deps, tool, { force: flags.force });
    if (flags.json) return { out: `${JSON.stringify(r, null, 2)}\n`, err: '', code: 0 };
    return { out: `${r.message}\n${changedLines(r)}`, err: '', code: 0 };
  } catch (err) {
    if (err instanceof ApiError) return { out: '', err: `${err.message}\n${err.action}\n`, code: 2 };
    throw err;
  }
}
