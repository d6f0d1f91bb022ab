// What Connect knows about each tool: a `file` tool has one settings file Connect reads and writes; a `manual` tool
// keeps its settings where Connect cannot write (a database, the editor's secret storage, a web page), so Connect shows
// the values and the steps.
import type { BaseUrls, ConnectToolId, CopyValue, ToolStatus } from '../../../shared/connect.ts';
import type { ToolEnv } from '../env.ts';
import type { UsualModel } from '../route-check.ts';

export type ToolCtx = {
  env: ToolEnv;
  /** The port Switchboard listens on (the server's real one, or config.json's listen_port for the CLI). */
  port: number;
  urls: BaseUrls;
  /** Model names Switchboard routes by name (config.json's rules without glob characters), for tools that list them. */
  models: string[];
};

/** Where a file tool's setting stands, read from its file's text (null: the file does not exist). */
export type Reading = {
  state: 'connected' | 'elsewhere' | 'not_connected';
  /** Where it points now (a base URL), null when its settings do not say. */
  current: string | null;
  /** One sentence: what the file says. */
  detail: string;
};

type Common = {
  id: ConnectToolId;
  name: string;
  app: string;
  format: ToolStatus['format'];
  values(ctx: ToolCtx): CopyValue[];
};

export type FileTool = Common & {
  kind: 'file';
  /** The settings file Connect writes, and what it is. */
  file(ctx: ToolCtx): Promise<{ path: string; role: string }>;
  /** Installed: its folder exists or its program is on PATH (or the settings file exists). */
  installed(ctx: ToolCtx): Promise<boolean>;
  /** Reads the file's text (null: it does not exist); throws ParseProblem when it does not parse. */
  read(text: string | null, ctx: ToolCtx, file: string): Reading;
  /** The file's text pointing at Switchboard (every other byte kept where the format allows); CannotEdit if it can't. */
  write(text: string | null, ctx: ToolCtx, file: string): string;
  steps(ctx: ToolCtx, file: string): string[];
  /** The models the tool usually asks for, as its file says or its defaults (Connect's routing check); [] if unknown. */
  usual?(text: string | null): UsualModel[];
};

export type ManualTool = Common & {
  kind: 'manual';
  installed(ctx: ToolCtx): Promise<boolean>;
  /** Why it is manual, in one sentence. */
  detail: string;
  steps(ctx: ToolCtx): string[];
};

export type Tool = FileTool | ManualTool;

/** `what` names a value; `url` is shown as it is, anything else quoted. */
export const describeValue = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

/** The file parses but holds the setting in a form Connect does not edit: the steps say how to do it by hand. */
export class CannotEdit extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CannotEdit';
  }
}
