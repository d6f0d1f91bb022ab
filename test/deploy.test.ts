// The deployment files (deploy/, docs/team.md) parse and say what the page says: the compose file is YAML with
// Redis, three instances each with its own volume, the same config.json and SWITCHBOARD_REDIS_URL, started with
// `switchboard serve --host 0.0.0.0`, and a balancer whose config names the three and checks a route that exists
// without a credential; deploy/config.json is a valid config.json in gateway mode on Redis; the systemd unit has its
// sections, an EnvironmentFile and the same command. (`docker compose config` and `systemd-analyze verify` are not
// assumed to exist where the tests run.)
import { durabilityOf } from '../main/orchestrator/store/durability.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../shared/config.ts';

const DEPLOY = path.resolve(import.meta.dirname, '../deploy');
const read = (f: string) => fs.readFile(path.join(DEPLOY, f), 'utf8');

type Service = {
  build?: unknown;
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string>;
  env_file?: string;
  volumes?: string[];
  depends_on?: unknown;
  healthcheck?: { test: string[] };
  ports?: string[];
};

describe('deploy/', () => {
  it('docker-compose.yml: Redis, three instances (own volume, same config.json, the Redis URL) and a balancer', async () => {
    const compose = parse(await read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, Service>;
      volumes: Record<string, unknown>;
    };
    const names = Object.keys(compose.services).sort();
    expect(names).toEqual(['caddy', 'redis', 'switchboard-1', 'switchboard-2', 'switchboard-3']);
    const instances = names.filter((n) => n.startsWith('switchboard-')).map((n) => compose.services[n]!);
    const dataVolumes = new Set<string>();
    for (const s of instances) {
      const command = Array.isArray(s.command) ? s.command.join(' ') : String(s.command);
      expect(command).toMatch(/switchboard serve --host 0\.0\.0\.0 --port 11434 --quiet-token/);
      expect(command).toContain('/etc/switchboard/config.json');
      expect(s.environment?.SWITCHBOARD_REDIS_URL).toMatch(/redis:\/\/redis:6379/);
      expect(s.environment?.SWITCHBOARD_CONFIG).toBe('/var/lib/switchboard/config.json');
      expect(s.volumes).toContain('./config.json:/etc/switchboard/config.json:ro');
      const data = s.volumes!.find((v) => v.endsWith(':/var/lib/switchboard'))!;
      dataVolumes.add(data.split(':')[0]!);
      expect(s.healthcheck?.test.join(' ')).toContain('/api/v1/health');
      expect(s.env_file).toBe('.env');
    }
    expect(dataVolumes.size).toBe(3); // never one folder for two instances
    for (const v of dataVolumes) expect(compose.volumes).toHaveProperty(v);
    expect(compose.services.caddy!.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
    // Issue 35: the Redis it ships keeps "durable before the answer" for the agents' tasks (fsync before it answers).
    const redisArgs = compose.services.redis!.command as string[];
    const arg = (name: string) => redisArgs[redisArgs.indexOf(`--${name}`) + 1] ?? null;
    const said = durabilityOf({
      appendonly: arg('appendonly'),
      appendfsync: arg('appendfsync'),
      save: null,
      replicas: 0,
      waitReplicas: 0,
    });
    expect(said.level).toBe('fsync');
    await fs.access(path.join(DEPLOY, 'Dockerfile'));
    await fs.access(path.join(DEPLOY, '.env.example'));
  });

  it('Caddyfile: the three instances, an active health check on /api/v1/health, streaming flushed', async () => {
    const caddy = await read('Caddyfile');
    expect(caddy).toMatch(/reverse_proxy switchboard-1:11434 switchboard-2:11434 switchboard-3:11434/);
    expect(caddy).toMatch(/health_uri \/api\/v1\/health/);
    expect(caddy).toMatch(/flush_interval -1/);
    // Every route to every instance, the agent API included (issue 35): no path kept to one instance, no stickiness.
    expect(caddy).not.toMatch(/handle_path|handle \/api|lb_policy (cookie|ip_hash|header)/);
  });

  it('config.json: a valid config in gateway mode with the Redis store and no key in it', async () => {
    const text = await read('config.json');
    const r = parseConfig(JSON.parse(text));
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(r.config.gateway.enabled).toBe(true);
    expect(r.config.store).toEqual({
      kind: 'redis',
      url: 'redis://redis:6379/0',
      prefix: 'switchboard:',
      timeout_ms: 50,
      trip_after: 3,
      probe_ms: 250,
    });
    for (const p of r.config.providers) expect(p.api_key).toMatch(/^env:[A-Z_]+$/);
  });

  it('switchboard.service: a unit with EnvironmentFile and the same serve command', async () => {
    const unit = await read('switchboard.service');
    const sections = [...unit.matchAll(/^\[(\w+)\]$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Unit', 'Service', 'Install']);
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/switchboard\/switchboard\.env$/m);
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node (--\S+ )*\S+\/bin\/switchboard\.mjs serve --config \S+ --host 0\.0\.0\.0/m,
    );
    expect(unit).toMatch(/^ExecStartPre=.*\/etc\/switchboard\/config\.json/m);
    // The admin token never in the journal: the banner names its file (stdout is not a terminal anyway).
    expect(unit).toMatch(/^ExecStart=.* serve .*--quiet-token$/m);
    // Every line is a comment, a section, blank, or Key=Value.
    for (const line of unit.split('\n')) expect(line, line).toMatch(/^(#.*|\[\w+\]|[A-Za-z]+=.*|)$/);
  });

  it("the unit's header and docs/team.md's systemd steps run as written: /etc/switchboard made first, keys made with the service's environment", async () => {
    const doc = await fs.readFile(path.resolve(DEPLOY, '../docs/team.md'), 'utf8');
    const header = (await read('switchboard.service')).split('\n[Unit]')[0]!;
    for (const steps of [header, doc.slice(doc.indexOf('## With systemd'))]) {
      const made = steps.search(/install -d[^\n]* \/etc\/switchboard(\s|$)/m);
      const into = steps.indexOf('/etc/switchboard/config.json');
      expect(made, 'install -d … /etc/switchboard').toBeGreaterThanOrEqual(0);
      expect(made).toBeLessThan(into);
      // `keys create` for the service: with its EnvironmentFile (SWITCHBOARD_REDIS_URL), not the shell's environment.
      const create = /systemd-run [^\n]*(\\\n[^\n]*)*keys create --gateway/.exec(steps)?.[0];
      expect(create, 'a keys create through systemd-run').toBeDefined();
      expect(create).toContain('-p EnvironmentFile=/etc/switchboard/switchboard.env');
      expect(create).toContain('--uid=switchboard');
    }
  });

  it('docs/team.md names every file of deploy/ and the health route', async () => {
    const doc = await fs.readFile(path.resolve(DEPLOY, '../docs/team.md'), 'utf8');
    for (const f of await fs.readdir(DEPLOY)) expect(doc).toContain(`\`${f}\``);
    expect(doc).toContain('/api/v1/health');
    expect(doc).toContain('appendfsync always');
    expect(doc).not.toMatch(/agent API[^.]*is per instance/);
  });
});
