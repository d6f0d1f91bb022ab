// `switchboard connect` as a user runs it: the real CLI in a child process, with HOME (and XDG_CONFIG_HOME, PATH) set
// to a temporary folder and config.json's listen_port giving the port; no server runs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectOverviewSchema } from '../../shared/connect.ts';
import { runSwitchboard } from '../../test/support/serve-process.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';

let tmp: TempDir;
let home: string;
let config: string;
beforeAll(async () => {
  tmp = await makeTempDir('sb-connect-cli');
  home = path.join(tmp.dir, 'home');
  await fs.mkdir(path.join(home, '.claude'), { recursive: true });
  await fs.mkdir(path.join(home, '.continue'));
  await fs.mkdir(path.join(tmp.dir, 'bin'));
  config = path.join(tmp.dir, 'Switchboard', 'config.json');
  await fs.mkdir(path.dirname(config));
  await fs.writeFile(config, JSON.stringify({ listen_port: 11500, routing: { rules: [{ pattern: 'gpt-4o-mini' }] } }));
});
afterAll(() => tmp.cleanup());

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    PATH: path.join(tmp.dir, 'bin'),
  };
  const r = await runSwitchboard(['connect', ...args, '--config', config], { env });
  return { ...r, code: r.code ?? -1 };
}

describe('switchboard connect', () => {
  it("with no tool: every tool, its state and the base URLs on config.json's port", async () => {
    const r = await cli();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TOOL\s+STATE\s+APP\s+SETTINGS$/m);
    expect(r.stdout).toMatch(/^claude-code\s+not_connected\s+claude-code\s+/m);
    expect(r.stdout).toMatch(/^codex\s+not_installed\s+codex\s+/m);
    expect(r.stdout).toMatch(/^cursor\s+manual\s+cursor\s+Cursor keeps its settings in its own database/m);
    expect(r.stdout).toContain('Base URLs: OpenAI http://localhost:11500/v1  Anthropic http://localhost:11500');
    const json = ConnectOverviewSchema.parse(JSON.parse((await cli('--json')).stdout));
    expect(json.tools.find((t) => t.id === 'continue')!.state).toBe('not_connected');
  });

  it('connects a tool, and --undo removes the file it created', async () => {
    const file = path.join(home, '.claude', 'settings.json');
    const r = await cli('claude-code');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Claude Code now points at Switchboard');
    expect(r.stdout).toContain(`created ${file}`);
    expect(JSON.parse(await fs.readFile(file, 'utf8')).env.ANTHROPIC_BASE_URL).toBe('http://localhost:11500');
    const again = await cli('claude-code');
    expect(again.stdout).toContain('already points at Switchboard; nothing was changed');
    const u = await cli('claude-code', '--undo');
    expect(u.code).toBe(0);
    expect(u.stdout).toContain(`removed ${file}`);
    await expect(fs.stat(file)).rejects.toThrow();
    const none = await cli('claude-code', '--undo');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Nothing to undo for Claude Code');
  });

  it('refuses a tool that points elsewhere (exit 2, how to force), replaces it with --force, and undoes it', async () => {
    const file = path.join(home, '.aider.conf.yml');
    const original = await fs.readFile(path.join(import.meta.dirname, 'fixtures', 'aider.elsewhere.conf.yml'));
    await fs.writeFile(file, original);
    const r = await cli('aider');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Aider points elsewhere');
    expect(r.stderr).toContain('switchboard connect aider --force');
    expect((await fs.readFile(file)).equals(original)).toBe(true);
    expect((await cli('aider', '--force')).code).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toContain('openai-api-base: http://localhost:11500/v1');
    expect((await cli('aider', '--undo')).code).toBe(0);
    expect((await fs.readFile(file)).equals(original)).toBe(true);
  });

  it('--all connects the installed tools that wait for it and says which it skipped', async () => {
    await fs.writeFile(path.join(home, '.aider.conf.yml'), 'openai-api-base: https://gateway.example.com/v1\n');
    const r = await cli('--all');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Claude Code now points at Switchboard');
    expect(r.stdout).toContain('Continue now points at Switchboard');
    expect(r.stderr).toContain('skipped aider: elsewhere');
    expect(await fs.readFile(path.join(home, '.continue', 'config.yaml'), 'utf8')).toContain('apiKey: "app:continue"');
  });

  it('refuses a manual tool and an unknown one with exit 2', async () => {
    const manual = await cli('cursor');
    expect(manual.code).toBe(2);
    expect(manual.stderr).toContain('Cursor keeps its settings in its own database: set these values by hand.');
    expect((await cli('notepad')).stderr).toContain('No tool "notepad"');
  });
});

// Issue 33, item 6: a dangling ~/.claude symlink crashed the CLI with a stack trace after the manifest was written.
describe('switchboard connect over a dangling ~/.claude symlink', () => {
  it('exits 2 with what is wrong and the fix, no stack trace, and keeps no backup', async () => {
    const other = path.join(tmp.dir, 'home-dangling');
    await fs.mkdir(other);
    await fs.symlink(path.join(tmp.dir, 'dotfiles-gone', '.claude'), path.join(other, '.claude'));
    const cfg = path.join(tmp.dir, 'Switchboard2', 'config.json');
    const r = await runSwitchboard(['connect', 'claude-code', '--config', cfg], {
      env: { HOME: other, USERPROFILE: other, XDG_CONFIG_HOME: path.join(other, '.config'), PATH: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${path.join(other, '.claude')} is a symlink to ${path.join(tmp.dir, 'dotfiles-gone', '.claude')}`,
    );
    expect(r.stderr).toContain('Point the link at a folder (or remove it)');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    await expect(
      fs.stat(path.join(tmp.dir, 'Switchboard2', 'connect', 'claude-code', 'manifest.json')),
    ).rejects.toThrow();
  });
});
