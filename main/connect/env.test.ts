// Where each tool's settings live on Windows, macOS and Linux, what counts as installed, and which URLs are ours.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import {
  claudeDir,
  codexHome,
  continueDir,
  onPath,
  opencodeDir,
  pointsHere,
  type ToolEnv,
  vscodeUserDir,
} from './env.ts';

const linux: ToolEnv = { home: '/home/u', env: {}, platform: 'linux' };
const mac: ToolEnv = { home: '/Users/u', env: {}, platform: 'darwin' };
const win: ToolEnv = { home: 'C:\\Users\\u', env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, platform: 'win32' };

describe('settings folders per platform', () => {
  it("VS Code's user folder: XDG config on Linux, Application Support on macOS, %APPDATA% on Windows", () => {
    expect(vscodeUserDir(linux)).toBe('/home/u/.config/Code/User');
    expect(vscodeUserDir({ ...linux, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg/Code/User');
    expect(vscodeUserDir({ ...linux, env: { XDG_CONFIG_HOME: 'relative' } })).toBe('/home/u/.config/Code/User');
    expect(vscodeUserDir(mac)).toBe('/Users/u/Library/Application Support/Code/User');
    expect(vscodeUserDir(win)).toBe('C:\\Users\\u\\AppData\\Roaming\\Code\\User');
  });

  it('the tools own folders, and the variables that move them', () => {
    expect(claudeDir(win)).toBe('C:\\Users\\u\\.claude');
    expect(claudeDir({ ...linux, env: { CLAUDE_CONFIG_DIR: '/cfg/claude' } })).toBe('/cfg/claude');
    expect(codexHome({ ...linux, env: { CODEX_HOME: '/srv/codex' } })).toBe('/srv/codex');
    expect(continueDir({ ...mac, env: { CONTINUE_GLOBAL_DIR: '/c' } })).toBe('/c');
    expect(opencodeDir(win)).toBe('C:\\Users\\u\\.config\\opencode');
    expect(opencodeDir({ ...mac, env: { XDG_CONFIG_HOME: '/x' } })).toBe('/x/opencode');
  });
});

describe('a program on PATH', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir('sb-onpath');
  });
  afterEach(() => tmp.cleanup());

  it('counts when it is an executable file (POSIX) or has a PATHEXT extension (Windows)', async () => {
    await fs.writeFile(path.join(tmp.dir, 'codex'), '', { mode: 0o755 });
    await fs.writeFile(path.join(tmp.dir, 'claude'), '', { mode: 0o644 });
    await fs.writeFile(path.join(tmp.dir, 'gemini.cmd'), '');
    const env = (platform: NodeJS.Platform): ToolEnv => ({ home: tmp.dir, env: { PATH: tmp.dir }, platform });
    expect(await onPath(env('linux'), 'codex')).toBe(true);
    expect(await onPath(env('linux'), 'claude')).toBe(false);
    expect(await onPath(env('linux'), 'gemini')).toBe(false);
    expect(await onPath({ ...env('win32'), env: { Path: tmp.dir, PATHEXT: '.EXE;.CMD' } }, 'gemini')).toBe(true);
  });
});

describe('a URL is Switchboard', () => {
  it('for any loopback host name, this port and the path, a trailing slash aside', () => {
    expect(pointsHere('http://localhost:11434/v1', 11434, '/v1')).toBe(true);
    expect(pointsHere('http://127.0.0.1:11434/v1/', 11434, '/v1')).toBe(true);
    expect(pointsHere('http://[::1]:11434', 11434, '')).toBe(true);
    expect(pointsHere('http://localhost:11435/v1', 11434, '/v1')).toBe(false);
    expect(pointsHere('https://localhost:11434/v1', 11434, '/v1')).toBe(false);
    expect(pointsHere('http://host.docker.internal:11434', 11434, '')).toBe(false);
    expect(pointsHere('http://localhost:11434', 11434, '/v1')).toBe(false);
    expect(pointsHere(42, 11434, '')).toBe(false);
  });
});
