// Connect and Undo on real files in a temporary home folder: every file tool is connected and undone byte for byte,
// comments stay, a tool that points elsewhere is reported and left alone (and replaced only with force, then undone
// back), a file that does not parse is refused with file:line:column and nothing written, a file that did not exist is
// created and then removed, file modes and symlinks are kept. fixtures/sources.json names where each fixture comes from.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONNECT_TOOL_IDS, ConnectOverviewSchema, ConnectResultSchema } from '../../shared/connect.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { ApiError } from '../errors.ts';
import { backupDir } from './backup.ts';
import {
  connectAll,
  connectOverview,
  connectTool,
  type ConnectDeps,
  routedModelNames,
  toolStatus,
  undoTool,
} from './connect.ts';
import { parseToml } from './formats/toml.ts';
import { toolById } from './tools/index.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => fs.readFile(path.join(FIXTURES, name));

let tmp: TempDir;
let home: string;
let deps: ConnectDeps;
beforeEach(async () => {
  tmp = await makeTempDir('sb-connect');
  home = path.join(tmp.dir, 'home');
  await fs.mkdir(home);
  deps = {
    configDir: path.join(tmp.dir, 'Switchboard'),
    port: 11434,
    models: ['gpt-4o-mini'],
    env: { home, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: '' }, platform: 'linux' },
  };
});
afterEach(() => tmp.cleanup());

/** Where each file tool's settings live under the temporary home. */
const FILE: Record<string, string> = {
  'claude-code': '.claude/settings.json',
  codex: '.codex/config.toml',
  'gemini-cli': '.gemini/.env',
  continue: '.continue/config.yaml',
  aider: '.aider.conf.yml',
  opencode: '.config/opencode/opencode.json',
  'copilot-vscode': '.config/Code/User/settings.json',
};
const at = (id: string, file = FILE[id]!) => path.join(home, file);

async function place(id: string, bytes: Buffer | string, file = FILE[id]!): Promise<string> {
  const p = at(id, file);
  await fs.mkdir(path.dirname(p), { recursive: true });
  await fs.writeFile(p, bytes);
  return p;
}

/** The error a call throws, as an ApiError. */
async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/**
 * Every line of `before` is in `after`, in order: Connect only added lines (and the comma a new JSON member needs after
 * the one before it), or changed the lines `changed` matches.
 */
function keptLines(before: string, after: string, changed: RegExp | null = null): void {
  const out = after.split(/\r?\n/);
  let i = 0;
  for (const line of before.split(/\r?\n/)) {
    if (changed?.test(line)) continue;
    const found = out.findIndex((l, j) => j >= i && (l === line || l === `${line},`));
    expect(found, `line kept: ${JSON.stringify(line)}`).toBeGreaterThanOrEqual(0);
    i = found + 1;
  }
}

/** A real (or hand-written) settings file per tool, connected then undone; the comment lines the format keeps. */
const CASES: { id: string; fixture: string; file?: string; changed?: RegExp; comments: RegExp }[] = [
  { id: 'claude-code', fixture: 'claude-settings.007-dotfiles.json', comments: /^$/ },
  { id: 'codex', fixture: 'codex-example-config.toml', changed: /^model_provider = /, comments: /^\s*#/ },
  { id: 'codex', fixture: 'codex-config.0xrsydn-dotfiles.toml', comments: /^\s*#/ },
  { id: 'gemini-cli', fixture: 'gemini.env', comments: /^\s*#/ },
  { id: 'continue', fixture: 'continue-config.b2f.yaml', comments: /^\s*#/ },
  { id: 'continue', fixture: 'continue-config.legacy.json', file: '.continue/config.json', comments: /^$/ },
  { id: 'aider', fixture: 'aider.sample-head.conf.yml', comments: /^\s*#/ },
  {
    id: 'opencode',
    fixture: 'opencode.012e-dotfiles-linux.jsonc',
    file: '.config/opencode/opencode.jsonc',
    comments: /\/\//,
  },
  { id: 'copilot-vscode', fixture: 'vscode-settings.9999years-dotfiles.json', comments: /^$/ },
];

describe('connect then undo, for each file tool, restores the exact bytes', () => {
  for (const c of CASES) {
    it(`${c.id} (${c.fixture})`, async () => {
      const original = await fixture(c.fixture);
      const file = await place(c.id, original, c.file);
      expect((await toolStatus(deps, toolById(c.id)!)).state).toBe('not_connected');

      const r = ConnectResultSchema.parse(await connectTool(deps, c.id));
      expect(r.tool.state).toBe('connected');
      expect(r.tool.can_undo).toBe(true);
      expect(r.changed).toEqual([
        { path: file, action: 'modified', backup: path.join(backupDir(deps.configDir, c.id), 'previous') },
      ]);
      const connected = await fs.readFile(file, 'utf8');
      // Comments and every other line stay (YAML may re-print a line it touches; its comment lines all stay).
      if (c.id === 'continue' || c.id === 'aider') {
        for (const line of original
          .toString()
          .split('\n')
          .filter((l) => c.comments.test(l)))
          expect(connected).toContain(line);
      } else keptLines(original.toString(), connected, c.changed ?? null);
      // The backup holds the exact previous bytes.
      expect((await fs.readFile(r.changed[0]!.backup!)).equals(original)).toBe(true);

      const u = ConnectResultSchema.parse(await undoTool(deps, c.id));
      expect(u.changed).toEqual([{ path: file, action: 'restored', backup: null }]);
      expect((await fs.readFile(file)).equals(original)).toBe(true);
      expect(u.tool.state).toBe('not_connected');
      expect(u.tool.can_undo).toBe(false);
    });
  }
});

describe('what Connect writes, read back as the tool reads it', () => {
  it('Claude Code: env.ANTHROPIC_BASE_URL is the root and the token names the app', async () => {
    await place('claude-code', await fixture('claude-settings.007-dotfiles.json'));
    await connectTool(deps, 'claude-code');
    const json = JSON.parse(await fs.readFile(at('claude-code'), 'utf8'));
    expect(json.env).toEqual({ ANTHROPIC_BASE_URL: 'http://localhost:11434', ANTHROPIC_AUTH_TOKEN: 'app:claude-code' });
    expect(json.permissions.allow).toHaveLength(94);
  });

  it('Codex: model_provider switched in place (its comment kept) and the provider table appended', async () => {
    await place('codex', await fixture('codex-example-config.toml'));
    await connectTool(deps, 'codex');
    const text = await fs.readFile(at('codex'), 'utf8');
    expect(text).toContain(
      '# Provider id selected from [model_providers]. Default: "openai".\nmodel_provider = "switchboard"\n',
    );
    const data = parseToml(text) as Record<string, any>;
    expect(data.model_provider).toBe('switchboard');
    expect(data.model_providers.switchboard).toEqual({
      name: 'Switchboard',
      base_url: 'http://localhost:11434/v1',
      wire_api: 'responses',
      http_headers: { 'x-switchboard-app': 'codex' },
    });
    expect(data.shell_environment_policy.inherit).toBe('all');
  });

  it('Codex: a config with no model_provider gets one at the end of its root keys, before the first table', async () => {
    await place('codex', await fixture('codex-config.0xrsydn-dotfiles.toml'));
    await connectTool(deps, 'codex');
    const text = await fs.readFile(at('codex'), 'utf8');
    expect(text).toContain('service_tier = "fast"\nmodel_provider = "switchboard"\n\n[sandbox_workspace_write]');
    expect((parseToml(text) as any).projects['/home/rsydn'].trust_level).toBe('trusted');
  });

  it('Codex: a switchboard provider written inline is refused with the lines to add by hand, nothing written', async () => {
    const text = 'model_providers = { switchboard = { name = "mine", base_url = "http://elsewhere/v1" } }\n';
    await place('codex', text);
    const e = await refusal(connectTool(deps, 'codex', { force: true }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('in a form Connect does not edit');
    expect(e.action).toContain('[model_providers.switchboard]');
    expect(await fs.readFile(at('codex'), 'utf8')).toBe(text);
  });

  it('Gemini CLI: the base URL is the root, the app header is merged into existing custom headers', async () => {
    await place('gemini-cli', 'GEMINI_CLI_CUSTOM_HEADERS="X-Team: infra"\r\nGEMINI_API_KEY=mine\r\n');
    await connectTool(deps, 'gemini-cli');
    expect(await fs.readFile(at('gemini-cli'), 'utf8')).toBe(
      'GEMINI_CLI_CUSTOM_HEADERS="X-Team: infra, x-switchboard-app: gemini-cli"\r\nGEMINI_API_KEY=mine\r\n' +
        'GOOGLE_GEMINI_BASE_URL=http://localhost:11434\r\n',
    );
  });

  it('Continue: one model "Switchboard" appended (AUTODETECT, /v1, app:continue), the others kept', async () => {
    await place('continue', await fixture('continue-config.b2f.yaml'));
    await connectTool(deps, 'continue');
    const text = await fs.readFile(at('continue'), 'utf8');
    expect(text).toContain(
      '  - name: Switchboard\n    provider: openai\n    model: AUTODETECT\n    apiBase: http://localhost:11434/v1\n    apiKey: app:continue\n',
    );
    expect(text).toContain('  - name: LM Studio\n');
  });

  it('OpenCode: a provider "switchboard" with the models routed by name; trailing commas kept', async () => {
    await place('opencode', await fixture('opencode.012e-dotfiles-linux.jsonc'), '.config/opencode/opencode.jsonc');
    await connectTool(deps, 'opencode');
    const text = await fs.readFile(at('opencode', '.config/opencode/opencode.jsonc'), 'utf8');
    expect(text).toContain('"url": "https://mcp.context7.com/mcp",\n    },\n  },\n  "provider": {');
    expect(text).toContain('"baseURL": "http://localhost:11434/v1"');
    expect(text).toContain('"gpt-4o-mini": {\n          "name": "gpt-4o-mini"\n        }\n      }\n    }\n  },\n}\n');
  });

  it("VS Code Copilot: the Ollama endpoint setting in the file's own 4-space indentation, no final newline added", async () => {
    await place('copilot-vscode', await fixture('vscode-settings.9999years-dotfiles.json'));
    await connectTool(deps, 'copilot-vscode');
    const text = await fs.readFile(at('copilot-vscode'), 'utf8');
    expect(
      text.endsWith(
        '"automaticallyOverrodeDefaultValue",\n    "github.copilot.chat.byok.ollamaEndpoint": "http://localhost:11434"\n}',
      ),
    ).toBe(true);
  });
});

describe('a tool that points elsewhere is reported and left alone', () => {
  const ELSEWHERE = [
    { id: 'claude-code', fixture: 'claude-settings.zai-comments.json', current: 'https://api.z.ai/api/anthropic' },
    { id: 'codex', fixture: 'codex-azure.toml', current: 'https://YOUR_PROJECT_NAME.openai.azure.com/openai' },
    { id: 'gemini-cli', fixture: 'gemini-elsewhere.env', current: 'https://gateway.example.com' },
    { id: 'aider', fixture: 'aider.elsewhere.conf.yml', current: 'https://gateway.example.com/v1' },
    { id: 'copilot-vscode', fixture: 'vscode-settings.elsewhere.jsonc', current: 'http://host.docker.internal:11434' },
  ];
  for (const c of ELSEWHERE) {
    it(`${c.id}: 409 without force; with force replaced, and undo brings the original back`, async () => {
      const original = await fixture(c.fixture);
      const file = await place(c.id, original);
      const status = (await connectOverview(deps)).tools.find((t) => t.id === c.id)!;
      expect(status).toMatchObject({ state: 'elsewhere', current: c.current });

      const e = await refusal(connectTool(deps, c.id));
      expect(e.code).toBe('connect_conflict');
      expect(e.status).toBe(409);
      expect(e.message).toContain(file);
      expect(e.message).toContain(c.current);
      expect(e.action).toContain(`switchboard connect ${c.id} --force`);
      expect((await fs.readFile(file)).equals(original)).toBe(true);
      expect(await fs.readdir(deps.configDir).catch(() => [])).toEqual([]);

      expect((await connectTool(deps, c.id, { force: true })).tool.state).toBe('connected');
      await undoTool(deps, c.id);
      expect((await fs.readFile(file)).equals(original)).toBe(true);
    });
  }

  it('Claude Code: comments and the other env keys stay when forced', async () => {
    await place('claude-code', await fixture('claude-settings.zai-comments.json'));
    await connectTool(deps, 'claude-code', { force: true });
    expect(await fs.readFile(at('claude-code'), 'utf8')).toBe(
      '{\n  // Claude Code through Z.ai\'s GLM Coding Plan\n  "env": {\n    "ANTHROPIC_AUTH_TOKEN": "app:claude-code",\n' +
        '    "ANTHROPIC_BASE_URL": "http://localhost:11434", // their Anthropic-compatible endpoint\n' +
        '    "API_TIMEOUT_MS": "3000000"\n  },\n  /* keep the co-author line out */\n  "includeCoAuthoredBy": false\n}\n',
    );
  });
});

describe('a settings file that does not parse is refused with file:line:column, and nothing is written', () => {
  const BROKEN: { id: string; text: string; where: string }[] = [
    { id: 'claude-code', text: '{\n  "env": {\n    "A": "b"\n  \n}\n', where: '6:1' },
    { id: 'codex', text: 'model = "o3"\n[model_providers\n', where: '2:' },
    { id: 'continue', text: 'models:\n  - name: a\n bad: [\n', where: '3:1' },
    { id: 'opencode', text: '{ "provider": { } ', where: '1:' },
  ];
  for (const c of BROKEN) {
    it(c.id, async () => {
      const file = await place(c.id, c.text);
      const status = await toolStatus(deps, toolById(c.id)!);
      expect(status.state).toBe('broken');
      expect(status.detail).toMatch(/line \d+, column \d+/);
      const e = await refusal(connectTool(deps, c.id));
      expect(e.status).toBe(400);
      expect(e.code).toBe('invalid_request');
      expect(e.message).toContain(`${file}:${c.where}`);
      expect(e.message).toContain('nothing was written');
      expect(await fs.readFile(file, 'utf8')).toBe(c.text);
      expect(await fs.readdir(deps.configDir).catch(() => [])).toEqual([]);
    });
  }
});

describe('a settings file that did not exist', () => {
  it('is created (with its folder) by connect, and removed (with the folder) by undo', async () => {
    await fs.mkdir(path.join(home, '.config'), { recursive: true });
    const r = await connectTool(deps, 'opencode');
    expect(r.changed).toEqual([{ path: at('opencode'), action: 'created', backup: null }]);
    expect((await fs.stat(at('opencode'))).mode & 0o777).toBe(0o600);
    const u = await undoTool(deps, 'opencode');
    expect(u.changed).toEqual([{ path: at('opencode'), action: 'removed', backup: null }]);
    await expect(fs.stat(path.join(home, '.config', 'opencode'))).rejects.toThrow();
    expect(await fs.readdir(path.join(home, '.config'))).toEqual([]);
  });

  it('in a folder that exists is created and removed, and the folder stays', async () => {
    await fs.mkdir(path.join(home, '.gemini'));
    await fs.writeFile(path.join(home, '.gemini', 'settings.json'), '{}');
    await connectTool(deps, 'gemini-cli');
    expect(await fs.readFile(at('gemini-cli'), 'utf8')).toBe(
      'GOOGLE_GEMINI_BASE_URL=http://localhost:11434\nGEMINI_CLI_CUSTOM_HEADERS="x-switchboard-app: gemini-cli"\nGEMINI_API_KEY=app:gemini-cli\n',
    );
    await undoTool(deps, 'gemini-cli');
    expect(await fs.readdir(path.join(home, '.gemini'))).toEqual(['settings.json']);
  });
});

describe('file modes and symlinks', () => {
  for (const mode of [0o600, 0o644]) {
    it(`a file of mode ${mode.toString(8)} keeps it through connect and undo`, async () => {
      const file = await place('aider', await fixture('aider.sample-head.conf.yml'));
      await fs.chmod(file, mode);
      await connectTool(deps, 'aider');
      expect((await fs.stat(file)).mode & 0o777).toBe(mode);
      await undoTool(deps, 'aider');
      expect((await fs.stat(file)).mode & 0o777).toBe(mode);
    });
  }

  it('a symlinked dotfile is written through: the link stays a link, its target changes, undo restores it', async () => {
    const original = await fixture('claude-settings.007-dotfiles.json');
    const target = path.join(tmp.dir, 'dotfiles', 'claude-settings.json');
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, original);
    await fs.mkdir(path.join(home, '.claude'));
    await fs.symlink(target, at('claude-code'));
    await connectTool(deps, 'claude-code');
    expect((await fs.lstat(at('claude-code'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(target, 'utf8')).toContain('app:claude-code');
    await undoTool(deps, 'claude-code');
    expect((await fs.lstat(at('claude-code'))).isSymbolicLink()).toBe(true);
    expect((await fs.readFile(target)).equals(original)).toBe(true);
  });

  it('a symlink to nothing is refused, nothing written', async () => {
    await fs.mkdir(path.join(home, '.claude'));
    await fs.symlink(path.join(tmp.dir, 'missing.json'), at('claude-code'));
    const e = await refusal(connectTool(deps, 'claude-code'));
    expect(e.message).toContain('which does not exist');
    await expect(fs.stat(path.join(tmp.dir, 'missing.json'))).rejects.toThrow();
  });
});

// Issue 33, item 6: Undo trusted its manifest (a manifest changed by hand made --undo delete a file outside the tool's
// settings), and a dangling ~/.claude symlink crashed the CLI after the manifest was written.
describe("undo trusts only what it checks against the tool's settings", () => {
  const manifestFile = (id: string) => path.join(backupDir(deps.configDir, id), 'manifest.json');
  const tamper = async (id: string, change: (m: Record<string, unknown>) => void) => {
    const m = JSON.parse(await fs.readFile(manifestFile(id), 'utf8')) as Record<string, unknown>;
    change(m);
    await fs.writeFile(manifestFile(id), JSON.stringify(m));
  };

  it('a manifest pointed at a file outside the settings: 409, nothing deleted or written, even forced', async () => {
    await fs.mkdir(path.join(home, '.claude'));
    await connectTool(deps, 'claude-code'); // created: undo would remove the file
    const victim = path.join(tmp.dir, 'precious.txt');
    await fs.writeFile(victim, 'keep me');
    const victimHash = (await import('node:crypto')).createHash('sha256').update('keep me').digest('hex');
    await tamper('claude-code', (m) => {
      m.path = victim;
      m.target = victim;
      m.after_sha256 = victimHash;
      delete m.after_ino;
      delete m.after_dev;
    });
    for (const force of [false, true]) {
      const e = await refusal(undoTool(deps, 'claude-code', { force }));
      expect(e.status).toBe(409);
      expect(e.message).toContain(`it names ${victim}, not Claude Code's settings file ${at('claude-code')}`);
      expect(e.message).toContain('nothing was undone');
    }
    expect(await fs.readFile(victim, 'utf8')).toBe('keep me');
    // The target alone, or a folder that is not on the way to the file: refused too.
    await tamper('claude-code', (m) => {
      m.path = at('claude-code');
      m.target = victim;
    });
    expect((await refusal(undoTool(deps, 'claude-code'))).message).toContain(`its target ${victim}`);
    await tamper('claude-code', (m) => {
      m.target = at('claude-code');
      m.created_dirs = [path.join(tmp.dir, 'elsewhere')];
    });
    expect((await refusal(undoTool(deps, 'claude-code'))).message).toContain('not a folder on the way');
    expect(await fs.readFile(victim, 'utf8')).toBe('keep me');
  });

  it('a previous file swapped for a symlink is not read through', async () => {
    const original = await fixture('claude-settings.007-dotfiles.json');
    await place('claude-code', original);
    await connectTool(deps, 'claude-code');
    const secret = path.join(tmp.dir, 'secret.txt');
    await fs.writeFile(secret, 'a secret that must not land in the settings');
    const previous = path.join(backupDir(deps.configDir, 'claude-code'), 'previous');
    await fs.rm(previous);
    await fs.symlink(secret, previous);
    await expect(undoTool(deps, 'claude-code')).rejects.toThrow();
    expect(await fs.readFile(at('claude-code'), 'utf8')).not.toContain('a secret');
  });

  it('the file replaced by another with the same bytes (another inode) is not taken for the one Connect wrote', async () => {
    await fs.mkdir(path.join(home, '.claude'));
    await connectTool(deps, 'claude-code');
    // Another file with the same bytes, made while the first exists (so another inode), renamed over it.
    const copy = path.join(home, '.claude', 'copy.json');
    await fs.writeFile(copy, await fs.readFile(at('claude-code')));
    await fs.rename(copy, at('claude-code'));
    const e = await refusal(undoTool(deps, 'claude-code'));
    expect(e.status).toBe(409);
    expect((await undoTool(deps, 'claude-code', { force: true })).changed[0]!.action).toBe('removed');
  });

  it('a dangling ~/.claude symlink is refused before anything is written: no manifest, a clear 400', async () => {
    await fs.symlink(path.join(tmp.dir, 'gone'), path.join(home, '.claude'));
    const e = await refusal(connectTool(deps, 'claude-code'));
    expect(e.status).toBe(400);
    expect(e.message).toContain(`${path.join(home, '.claude')} is a symlink to ${path.join(tmp.dir, 'gone')}`);
    expect(e.message).toContain('nothing was written');
    await expect(fs.stat(manifestFile('claude-code'))).rejects.toThrow();
  });
});

describe('undo', () => {
  it('with nothing to undo: 404 saying so', async () => {
    const e = await refusal(undoTool(deps, 'claude-code'));
    expect(e.status).toBe(404);
    expect(e.message).toContain('Nothing to undo for Claude Code');
  });

  it('of a file changed since Connect wrote it: 409 unless forced; forced, the later bytes are kept beside', async () => {
    const original = await fixture('claude-settings.007-dotfiles.json');
    const file = await place('claude-code', original);
    await connectTool(deps, 'claude-code');
    const edited = (await fs.readFile(file, 'utf8')).replace(
      '"includeCoAuthoredBy": false',
      '"includeCoAuthoredBy": true',
    );
    await fs.writeFile(file, edited);
    const e = await refusal(undoTool(deps, 'claude-code'));
    expect(e.code).toBe('connect_conflict');
    expect(e.message).toContain('changed since Connect wrote it');
    expect(await fs.readFile(file, 'utf8')).toBe(edited);

    const u = await undoTool(deps, 'claude-code', { force: true });
    expect((await fs.readFile(file)).equals(original)).toBe(true);
    expect(await fs.readFile(u.changed[0]!.backup!, 'utf8')).toBe(edited);
  });

  it('after connecting again for another port, still goes back to the bytes before the first connect', async () => {
    const original = await fixture('vscode-settings.9999years-dotfiles.json');
    await place('copilot-vscode', original);
    await connectTool(deps, 'copilot-vscode');
    const other = { ...deps, port: 11500 };
    expect((await toolStatus(other, toolById('copilot-vscode')!)).state).toBe('elsewhere');
    // Connect's own earlier write is not a conflict.
    await connectTool(other, 'copilot-vscode');
    expect(await fs.readFile(at('copilot-vscode'), 'utf8')).toContain('"http://localhost:11500"');
    await undoTool(other, 'copilot-vscode');
    expect((await fs.readFile(at('copilot-vscode'))).equals(original)).toBe(true);
  });
});

describe('refusals and the overview', () => {
  it('an unknown tool is 404; a manual tool is 400 with why', async () => {
    expect((await refusal(connectTool(deps, 'notepad'))).status).toBe(404);
    const e = await refusal(connectTool(deps, 'cursor'));
    expect(e.status).toBe(400);
    expect(e.message).toBe('Cursor keeps its settings in its own database: set these values by hand.');
  });

  it('lists every tool in order, with the base URLs, and what is installed', async () => {
    await fs.mkdir(path.join(home, '.codex'));
    const bin = path.join(tmp.dir, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'aider'), '#!/bin/sh\n', { mode: 0o755 });
    await fs.writeFile(path.join(bin, 'claude'), 'not executable', { mode: 0o644 });
    deps.env!.env.PATH = bin;
    const o = ConnectOverviewSchema.parse(await connectOverview(deps));
    expect(o.base_urls).toEqual({
      openai: 'http://localhost:11434/v1',
      anthropic: 'http://localhost:11434',
      gemini: 'http://localhost:11434/v1beta',
      ollama: 'http://localhost:11434',
    });
    expect(o.tools.map((t) => t.id)).toEqual([...CONNECT_TOOL_IDS]);
    const by = Object.fromEntries(o.tools.map((t) => [t.id, t]));
    expect(by.codex).toMatchObject({ installed: true, state: 'not_connected', kind: 'file' });
    expect(by.aider).toMatchObject({ installed: true, state: 'not_connected' });
    expect(by['claude-code']).toMatchObject({ installed: false, state: 'not_installed' });
    expect(by.cursor).toMatchObject({ kind: 'manual', state: 'manual', can_undo: false });
    expect(by.cursor!.values).toContainEqual({ label: 'Base URL', value: 'http://localhost:11434/v1' });
  });

  it('--all connects the installed tools waiting for it and skips the one that points elsewhere', async () => {
    await fs.mkdir(path.join(home, '.codex'));
    await place('gemini-cli', await fixture('gemini-elsewhere.env'));
    await fs.mkdir(path.join(home, '.continue'));
    const { results, skipped } = await connectAll(deps);
    expect(results.map((r) => r.tool.id)).toEqual(['codex', 'continue']);
    expect(skipped.find((s) => s.id === 'gemini-cli')!.state).toBe('elsewhere');
    expect((await fs.readFile(at('gemini-cli'))).equals(await fixture('gemini-elsewhere.env'))).toBe(true);
  });

  it("the models routed by name are the rules without globs and the app rules' overrides", () => {
    expect(
      routedModelNames({
        routing: { rules: [{ pattern: 'gpt-4o-mini' }, { pattern: 'claude-*' }, { pattern: 'llama3' }] },
        app_rules: [{ model_override: 'qwen2.5-coder' }, {}],
      }),
    ).toEqual(['gpt-4o-mini', 'llama3', 'qwen2.5-coder']);
  });
});
