// Every tool Connect knows, in CONNECT_TOOL_IDS order.
import { CONNECT_TOOL_IDS, type ConnectToolId } from '../../../shared/connect.ts';
import { aider } from './aider.ts';
import { claudeCode } from './claude-code.ts';
import { codex } from './codex.ts';
import { continueTool } from './continue.ts';
import { copilotVscode } from './copilot-vscode.ts';
import { geminiCli } from './gemini-cli.ts';
import { cline, cursor, openaiCompatible, openWebui, rooCode } from './manual.ts';
import { opencode } from './opencode.ts';
import type { Tool } from './types.ts';
import { zed } from './zed.ts';

const BY_ID: Record<ConnectToolId, Tool> = {
  'claude-code': claudeCode,
  codex,
  'gemini-cli': geminiCli,
  continue: continueTool,
  aider,
  opencode,
  'copilot-vscode': copilotVscode,
  zed,
  cline,
  'roo-code': rooCode,
  'open-webui': openWebui,
  cursor,
  'openai-compatible': openaiCompatible,
};

export const TOOLS: Tool[] = CONNECT_TOOL_IDS.map((id) => BY_ID[id]);
export const toolById = (id: string): Tool | undefined =>
  Object.hasOwn(BY_ID, id) ? BY_ID[id as ConnectToolId] : undefined;
