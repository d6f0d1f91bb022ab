// The headless shell: `switchboard serve`, `switchboard config path|check|backups|restore`, `switchboard keys`,
// `switchboard mcp`. No logic of its own.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveConfigPath } from './config/paths.ts';
import { BACKUP_POLICY, BackupNotFoundError, backupsDir, listBackups } from './config/backups.ts';
import { ConfigError, ConfigStore, restoreBackupFile } from './config/store.ts';
import { problemToText } from '../shared/config.ts';
import { PortInUseError } from './server/port-conflict.ts';
import { RUNTIME, VERSION } from './version.ts';
import { serveBanner } from './banner.ts';
import { createKey, keysFile, readKeys, revokeKey } from './orchestrator/keys.ts';
// Each command loads what it uses (the router for serve; Connect's editors, the MCP import, the gateway's keys for
// theirs) with a dynamic import: `serve` never loads Connect, and `--version` loads nothing of the router.

const HELP = `Switchboard ${VERSION}: a local LLM router.

Usage:
  switchboard serve [--config FILE] [--port N] [--host ADDR] [--quiet-token]
                                                                start the router (headless); the UI link carries
                                                                the admin token only on a terminal, never with
                                                                --quiet-token (else: the token file is named)
  switchboard config path [--config FILE]                       print where config.json is
  switchboard config check [--config FILE]                      validate config.json and exit
  switchboard config backups [--config FILE]                    list the backups of config.json (never the keys)
  switchboard config restore <id|latest> [--config FILE]        restore a backup (the current file is kept first)
  switchboard keys create [--tenant T] [--label L] [--config FILE]
                                                                issue an agent API key (printed once)
  switchboard keys list [--config FILE]                         list keys (id, tenant, created, label; never the key)
  switchboard keys revoke <id> [--config FILE]                  revoke a key
  switchboard keys create --gateway|--pat --name N [--models G] [--expires 30d] [--rpm N] [--tpm N] [--concurrency N]
                                                                issue a gateway key (sk-sb-) or PAT (sbp_)
  switchboard keys list|revoke <id> --gateway                   list or revoke gateway keys and PATs
  switchboard connect [--json]                                  every tool Connect knows: installed, where it points
  switchboard connect <tool> [--force] | --all                  point a tool (or every installed one) at Switchboard
  switchboard connect <tool> --undo [--force]                   put back exactly what Connect replaced
  switchboard mcp list [--json]                                 MCP servers of config.json: transport, state, tools
  switchboard mcp import [--from claude-desktop|claude-code|cursor|FILE]
                                                                add the mcpServers of those tools (never overwrites;
                                                                a FILE's servers, e.g. a project's .mcp.json, disabled)
  switchboard mcp enable|disable <name> [--yes]                 enable (shows what it runs and asks) or disable one
  switchboard --version | --help

config.json: --config, else $SWITCHBOARD_CONFIG, else the platform's config folder.
Exit codes: 0 ok, 1 unexpected error, 2 invalid config or usage, 3 port in use.`;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function serve(
  configPath: string,
  port: number | undefined,
  host: string | undefined,
  quietToken: boolean,
): Promise<void> {
  const { Switchboard } = await import('./app.ts');
  const sb = new Switchboard({ configPath, port, host });
  try {
    await sb.start();
  } catch (err) {
    if (err instanceof ConfigError) fail(`Switchboard did not start: ${err.message}`, 2);
    if (err instanceof PortInUseError) fail(`Switchboard did not start: ${err.message}`, 3);
    throw err;
  }
  process.stdout.write(
    serveBanner({
      version: VERSION,
      url: sb.url,
      configFile: sb.store.file,
      dir: sb.store.dir,
      adminToken: sb.adminToken,
      runtime:
        `${RUNTIME === 'compiled' ? 'compiled (dist/)' : 'TypeScript sources through tsx (npm run dev)'}, ` +
        `node ${process.version}`,
      tty: process.stdout.isTTY === true,
      quietToken,
    }),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sb.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function configBackups(configPath: string): Promise<void> {
  const all = await listBackups(configPath);
  const dir = backupsDir(configPath);
  if (all.length === 0) return void process.stdout.write(`no backups in ${dir} yet: each save keeps one\n`);
  for (const b of all) {
    const what = b.valid
      ? `${plural(b.providers, 'provider')}${b.providers ? ` (${b.provider_names.join(', ')})` : ''}, ${plural(b.rules, 'rule')}`
      : b.problem
        ? `not read: it ${b.problem}`
        : 'not a valid config';
    process.stdout.write(`${b.id}\t${b.saved_at}\t${b.reason}\t${b.size} bytes\t${what}\n`);
  }
  process.stderr.write(
    `${plural(all.length, 'backup')} in ${dir}, newest first (kept: ${BACKUP_POLICY}); ` +
      `restore one with: switchboard config restore <id|latest>\n`,
  );
}

async function configRestore(configPath: string, id: string | undefined): Promise<void> {
  if (!id) fail('usage: switchboard config restore <id|latest> (ids are shown by: switchboard config backups)', 2);
  try {
    const r = await restoreBackupFile(configPath, id);
    process.stdout.write(
      `restored ${r.restored.id} into ${configPath}` +
        (r.backup ? `; the config it replaced is kept as backup ${r.backup.id}` : ' (it already held these bytes)') +
        '. A running Switchboard takes it in within a second.\n',
    );
  } catch (err) {
    if (err instanceof BackupNotFoundError) fail(`${err.message}; see: switchboard config backups`, 2);
    if (err instanceof ConfigError)
      fail(
        `backup ${id} is not a valid config and was not restored:\n` +
          `${err.problems.map((p) => `  - ${problemToText(p)}`).join('\n')}\n` +
          `${configPath} is unchanged; pick another backup (switchboard config backups).`,
        2,
      );
    throw err;
  }
}

async function keys(
  configPath: string,
  sub: string | undefined,
  id: string | undefined,
  tenant: string | undefined,
  label: string | undefined,
): Promise<void> {
  const file = keysFile(path.dirname(configPath));
  // Store "redis": the command acts on the team's agent keys too (main/orchestrator/keys-team.ts).
  const teamOf = async () => (await import('./orchestrator/keys-team.ts')).teamKeysOf(configPath);
  if (sub === 'create') {
    const { key, record } = await createKey(file, tenant, label).catch((err: Error) => fail(err.message, 2));
    process.stdout.write(`${key}\n`);
    process.stderr.write(
      `created key ${record.id} for tenant "${record.tenant}" in ${file}; it is shown only now, store it safely\n`,
    );
    const { team, note } = await teamOf();
    await team?.add([record]);
    await team?.close();
    if (team) process.stderr.write(`shared with every instance of the team through Redis\n`);
    process.stderr.write(note);
    return;
  }
  if (sub === 'list') {
    const all = await readKeys(file);
    const { team, note } = await teamOf();
    const mine = new Set(all.map((k) => k.id));
    const others = team ? (await team.all()).filter((k) => !mine.has(k.id)) : [];
    await team?.close();
    process.stderr.write(note);
    if (all.length === 0 && others.length === 0)
      return void process.stdout.write(`no keys in ${file}; create one with: switchboard keys create\n`);
    // id, tenant, created, label (empty when none; the UI's own key says "Switchboard UI"); keys made on another
    // instance of the team last, their label marked.
    for (const k of all) process.stdout.write(`${k.id}\t${k.tenant}\t${k.created_at}\t${k.label ?? ''}\n`);
    for (const k of others)
      process.stdout.write(`${k.id}\t${k.tenant}\t${k.created_at}\t${k.label ?? ''} (made on another instance)\n`);
    return;
  }
  if (sub === 'revoke') {
    if (!id) fail('usage: switchboard keys revoke <id> (ids are shown by: switchboard keys list)', 2);
    const here = await revokeKey(file, id);
    const { team, note } = await teamOf();
    const there = team ? await team.revoke(id) : false;
    await team?.close();
    process.stderr.write(note);
    if (!here && !there)
      fail(`no key "${id}" in ${file}${team ? " or in the team's keys" : ''}; see: switchboard keys list`, 2);
    process.stdout.write(`revoked ${id}${team ? ' (on every instance of the team)' : ''}\n`);
    return;
  }
  fail(`Unknown keys command "${sub ?? ''}"; use create, list or revoke.\n\n${HELP}`, 2);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'quiet-token': { type: 'boolean' },
      tenant: { type: 'string' },
      label: { type: 'string' },
      gateway: { type: 'boolean' },
      pat: { type: 'boolean' },
      name: { type: 'string' },
      models: { type: 'string' },
      expires: { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      concurrency: { type: 'string' },
      force: { type: 'boolean' },
      undo: { type: 'boolean' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      from: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const [command, sub] = positionals;
  if (values.help || !command) return void process.stdout.write(`${HELP}\n`);
  const configPath = resolveConfigPath(values.config);

  if (command === 'serve') {
    let port: number | undefined;
    if (values.port !== undefined) {
      port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        fail(`--port must be a whole number from 0 to 65535 (got "${values.port}")`, 2);
    }
    return serve(configPath, port, values.host, values['quiet-token'] === true);
  }
  if (command === 'config' && sub === 'path') return void process.stdout.write(`${configPath}\n`);
  if (command === 'config' && sub === 'check') {
    try {
      const store = await ConfigStore.open(configPath);
      process.stdout.write(
        `${store.file} is valid (${store.config.providers.length} providers, ${store.config.routing.rules.length} rules)\n`,
      );
      return;
    } catch (err) {
      if (err instanceof ConfigError) fail(err.message, 2);
      throw err;
    }
  }
  if (command === 'config' && sub === 'backups') return configBackups(configPath);
  if (command === 'config' && sub === 'restore') return configRestore(configPath, positionals[2]);
  if (command === 'keys' && (values.gateway || values.pat)) {
    const { gatewayKeysCommand } = await import('./gateway/cli.ts');
    const r = await gatewayKeysCommand(path.dirname(configPath), sub, positionals[2], values, configPath).catch(
      (err: Error) => fail(err.message, 2),
    );
    process.stdout.write(r.out);
    if (r.err) process.stderr.write(r.err);
    return;
  }
  if (command === 'connect') {
    const { connectCommand } = await import('./connect/cli.ts');
    const r = await connectCommand(configPath, sub, values);
    process.stdout.write(r.out);
    process.stderr.write(r.err);
    process.exitCode = r.code;
    return;
  }
  if (command === 'mcp') {
    const { mcpCommand } = await import('./orchestrator/mcp/cli.ts');
    const r = await mcpCommand(configPath, sub, values, positionals[2]);
    process.stdout.write(r.out);
    process.stderr.write(r.err);
    process.exitCode = r.code;
    return;
  }
  if (command === 'keys') return keys(configPath, sub, positionals[2], values.tenant, values.label);
  fail(`Unknown command "${positionals.join(' ')}".\n\n${HELP}`, 2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const e = err as { code?: string; message?: string };
  if (e?.code?.startsWith('ERR_PARSE_ARGS')) fail(`${e.message}\n\n${HELP}`, 2);
  fail(`Switchboard stopped on an unexpected error: ${(err as Error)?.stack ?? String(err)}`, 1);
});
