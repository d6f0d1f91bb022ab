// Where each tool keeps its settings on this machine, whether it is installed, and whether a URL is Switchboard's.
// Every path is computed from a ToolEnv (home, environment, platform), never from process globals directly, so the
// tests run each tool against a temporary home folder and the code can be read for all three platforms at once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BaseUrls } from '../../shared/connect.ts';

export type ToolEnv = { home: string; env: NodeJS.ProcessEnv; platform: NodeJS.Platform };

export const currentToolEnv = (): ToolEnv => ({ home: os.homedir(), env: process.env, platform: process.platform });

/** The path module of the env's platform (win32 paths on Windows, posix elsewhere). */
export const pathsOf = (e: ToolEnv): path.PlatformPath => (e.platform === 'win32' ? path.win32 : path.posix);

/** An absolute directory named by a variable, else null (a relative value is ignored, as XDG says). */
function absVar(e: ToolEnv, name: string): string | null {
  const v = e.env[name];
  return v && pathsOf(e).isAbsolute(v) ? v : null;
}

/** $XDG_CONFIG_HOME, else ~/.config (the XDG rule; OpenCode applies it on every platform, via xdg-basedir). */
export function xdgConfigHome(e: ToolEnv): string {
  return absVar(e, 'XDG_CONFIG_HOME') ?? pathsOf(e).join(e.home, '.config');
}

/** Where VS Code keeps its user settings.json: %APPDATA%, ~/Library/Application Support, or $XDG_CONFIG_HOME. */
export function vscodeUserDir(e: ToolEnv): string {
  const p = pathsOf(e);
  if (e.platform === 'win32') return p.join(e.env.APPDATA || p.join(e.home, 'AppData', 'Roaming'), 'Code', 'User');
  if (e.platform === 'darwin') return p.join(e.home, 'Library', 'Application Support', 'Code', 'User');
  return p.join(xdgConfigHome(e), 'Code', 'User');
}

/** Claude Code's folder: $CLAUDE_CONFIG_DIR, else ~/.claude (%USERPROFILE%\.claude on Windows). */
export const claudeDir = (e: ToolEnv): string => absVar(e, 'CLAUDE_CONFIG_DIR') ?? pathsOf(e).join(e.home, '.claude');
/** Codex's folder: $CODEX_HOME, else ~/.codex. */
export const codexHome = (e: ToolEnv): string => absVar(e, 'CODEX_HOME') ?? pathsOf(e).join(e.home, '.codex');
/** Gemini CLI's user folder: ~/.gemini. */
export const geminiDir = (e: ToolEnv): string => pathsOf(e).join(e.home, '.gemini');
/** Continue's folder: $CONTINUE_GLOBAL_DIR, else ~/.continue. */
export const continueDir = (e: ToolEnv): string =>
  absVar(e, 'CONTINUE_GLOBAL_DIR') ?? pathsOf(e).join(e.home, '.continue');
/** OpenCode's global folder: <XDG config>/opencode. */
export const opencodeDir = (e: ToolEnv): string => pathsOf(e).join(xdgConfigHome(e), 'opencode');
/** VS Code's extensions folder (Cline, Roo Code and Copilot Chat are detected there). */
export const vscodeExtensionsDir = (e: ToolEnv): string => pathsOf(e).join(e.home, '.vscode', 'extensions');

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

export async function isDir(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Is a program of this name on PATH? Checked on the file system (PATHEXT on Windows), never by running it. */
export async function onPath(e: ToolEnv, name: string): Promise<boolean> {
  const dirs = (e.env.PATH ?? e.env.Path ?? '').split(e.platform === 'win32' ? ';' : ':').filter(Boolean);
  const exts = e.platform === 'win32' ? (e.env.PATHEXT ?? '.EXE;.CMD;.BAT;.PS1').split(';').filter(Boolean) : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      try {
        const st = await fs.stat(path.join(dir, name + ext.toLowerCase())); // the real file system's paths
        if (st.isFile() && (e.platform === 'win32' || (st.mode & 0o111) !== 0)) return true;
      } catch {
        // not here
      }
    }
  }
  return false;
}

/** A VS Code extension whose folder starts with `<publisher>.<name>-` is installed. */
export async function hasExtension(e: ToolEnv, id: string): Promise<boolean> {
  try {
    const names = await fs.readdir(vscodeExtensionsDir(e));
    return names.some((n) => n.toLowerCase().startsWith(`${id.toLowerCase()}-`));
  } catch {
    return false;
  }
}

/** The base URL a client of each wire format is given. */
export function baseUrlsFor(port: number): BaseUrls {
  const root = `http://localhost:${port}`;
  return { openai: `${root}/v1`, anthropic: root, gemini: `${root}/v1beta`, ollama: root };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Does `value` name Switchboard: http, a loopback host name (localhost, 127.0.0.1, [::1]), this port and this path
 * (a trailing slash aside)? `http://localhost:11434/v1/` is `http://127.0.0.1:11434/v1`.
 */
export function pointsHere(value: unknown, port: number, pathname: '' | '/v1'): boolean {
  if (typeof value !== 'string') return false;
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return false;
  }
  const p = u.pathname.replace(/\/+$/, '');
  return u.protocol === 'http:' && LOOPBACK.has(u.hostname) && Number(u.port || 80) === port && p === pathname;
}
