// Composition root: config store, engine, health checks, HTTP server; start() and stop() for both shells.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PortFollow } from '../shared/connect.ts';
import type { Config } from '../shared/config.ts';
import { configWarnings, effectiveStore, envReferences, problemToText } from '../shared/config.ts';
import { loadAdminToken } from './config/admin-token.ts';
import { keysOfferedByEnv } from './config/defaults.ts';
import { clearListening, writeListening } from './config/listening.ts';
import { ConfigStore } from './config/store.ts';
import { logger } from './observability/logger.ts';
import { addSecretSource } from './observability/redact.ts';
import { RequestLog } from './observability/request-log.ts';
import { CaptureStore } from './insight/capture.ts';
import { readLogTail } from './observability/log-tail.ts';
import { startMemoryTrim } from './observability/memory-trim.ts';
import { Engine } from './proxy/engine.ts';
import { HealthChecker } from './proxy/health.ts';
import { buildRequestListener } from './server/app.ts';
import { Listener } from './server/listener.ts';
import { Metrics } from './observability/metrics.ts';
import { KeyRing, keysFile } from './orchestrator/keys.ts';
import { Orchestrator } from './orchestrator/orchestrator.ts';
import { openRedisOrchestratorStore } from './orchestrator/store/index.ts';
import type { SharedAgentKeys } from './orchestrator/keys-shared.ts';
import { defaultWalDir, openWal, type WalLog } from './wal/index.ts';
import { NOTIFICATION_DEFAULTS } from '../shared/usage.ts';
import { Notifier } from './usage/notifier.ts';
import { VERSION } from './version.ts';
import { UsageService } from './usage/service.ts';
import { closeGateway, gatewayFor } from './gateway/gateway.ts';
import type { FailOpenState } from './store/fail-open.ts';
import type { RedisConnection } from './store/redis-connection.ts';
import type { StoreSource, TeamQueueSource } from './observability/metrics.ts';

export type SwitchboardOptions = {
  configPath: string;
  /** Overrides listen_port for this run only (0 picks a free port); config.json is not changed. */
  port?: number;
  host?: string;
};

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

export class Switchboard {
  readonly requestLog = new RequestLog(1000);
  engine!: Engine;
  store!: ConfigStore;
  adminToken = '';
  wal!: WalLog;
  orchestrator!: Orchestrator;
  metrics!: Metrics;
  /** The usage store, its prices and budgets (summary(range), requests(limit, before)); open once started. */
  usage!: UsageService;
  /**
   * Notifications (provider down/up, failover, budgets): `notifications.subscribe(fn)` returns the unsubscribe
   * function, and may be called before start(). GET /admin/v1/events carries the same notices.
   */
  readonly notifications = new Notifier(() => this.store?.config.notifications ?? NOTIFICATION_DEFAULTS);
  private health!: HealthChecker;
  /** Store "redis": the team's request stream (main/store/team-log.ts). */
  private teamLog: { close(): Promise<void> } | null = null;
  /** Store "redis": the team's agent keys (main/orchestrator/keys-shared.ts). */
  private teamKeys: SharedAgentKeys | null = null;
  private memoryTrim: { stop(): void } | null = null;
  /** Store "redis": the gateway's connection (its breaker, call latencies and fail-open time for the metrics). */
  private teamConnection: RedisConnection | null = null;
  private forgetAdminToken: (() => void) | null = null;
  private forgetApprovals: (() => void) | null = null;
  private listener!: Listener;
  /** The port move the last config change started: null once bound, or why it failed (the save answer says it). */
  private moving: Promise<string | null> = Promise.resolve(null);
  /** The tools the last move pointed at the new port (main/connect/connect.ts followPort). */
  private followed: Promise<PortFollow[]> = Promise.resolve([]);

  constructor(readonly options: SwitchboardOptions) {}

  get port(): number {
    return this.listener.port;
  }

  get url(): string {
    return this.listener.url;
  }

  /** Loads config (throws ConfigError if invalid), binds the port (throws PortInUseError), starts health checks. */
  async start(): Promise<void> {
    this.store = await ConfigStore.open(this.options.configPath);
    if (this.store.firstRun) this.announceFirstRun();
    for (const notice of this.store.notices) logger.warn(notice);
    this.warnAbout(this.store.config);
    this.adminToken = await loadAdminToken(this.store.dir);
    this.forgetAdminToken = addSecretSource(() => [this.adminToken]); // scrubbed from error texts like provider keys
    this.engine = new Engine(this.store.config, this.store.file, this.requestLog);
    this.engine.notice = (n) => void this.notifications.notify(n);
    // The last requests of the previous run, read while the rest starts, in the log before the port opens.
    const tail = readLogTail(path.join(this.store.dir, 'requests.jsonl'), this.requestLog.capacity);
    this.configureRequestLog(this.store.config);
    const dataDir = defaultWalDir(this.store.file);
    this.engine.capture = new CaptureStore(path.join(dataDir, 'captures'), this.store.config.capture);
    this.engine.capture.configure(this.store.config.capture); // trims what an earlier run left past the limits
    this.wal = await openWal({ dir: dataDir, onError: (err) => logger.error({ err }, 'WAL background work failed') });
    // Store "redis": the orchestrator's state is the team's (every instance serves every agent call); else the WAL's.
    const teamStore = effectiveStore(this.store.config.store, process.env.SWITCHBOARD_REDIS_URL);
    // Store "redis": the gateway's shared state is opened now, not at the first request, so /health, the metrics and
    // the log say from the start whether Redis is reached (issue 36).
    const shared = teamStore.kind === 'redis' ? await gatewayFor(this.engine).whenOpen() : null;
    this.teamConnection = shared?.kind === 'redis' ? (shared as FailOpenState).redis.conn : null;
    const orchestratorConfig = () => this.store.config.orchestrator;
    this.orchestrator = new Orchestrator({
      ...(teamStore.kind === 'redis' ? { store: await openRedisOrchestratorStore(teamStore, orchestratorConfig) } : {}),
      wal: this.wal,
      engine: () => this.engine,
      config: () => this.store.config.orchestrator,
      dataDir,
      mcpServers: () => this.store.config.mcp_servers,
      version: VERSION,
      // No MCP server gets a provider key: the variables config.json's env: values name, and every configured secret.
      mcpProtectedEnv: () => ({
        names: envReferences(this.store.config),
        values: [...this.engine.secrets(), this.adminToken],
      }),
    });
    await this.orchestrator.start();
    this.forgetApprovals = this.notifyApprovals();
    this.usage = await UsageService.open({
      engine: this.engine,
      config: () => this.store.config,
      dir: path.join(dataDir, 'usage'),
      notifier: this.notifications,
    });
    const orch = this.orchestrator;
    this.metrics = new Metrics({
      queueDepth: () => orch.queue.depth,
      queueRunning: () => orch.queue.running,
      tasksByStatus: () => {
        const out: Record<string, number> = { queued: 0, running: 0, completed: 0, failed: 0, stopped: 0 };
        for (const t of orch.store.tasks.values()) out[t.status] = (out[t.status] ?? 0) + 1;
        return out;
      },
      wal: () => ({ ...this.wal.status(), healthy: this.wal.info().fault === null }),
      subscribers: () => orch.store.subscriberCount,
      config: () => this.store.config,
      stores: () => this.storeSources(),
      teamQueues: () => this.teamQueues(),
    });
    this.requestLog.subscribe((e) => this.metrics.observeProxy(e));
    const agentKeys = new KeyRing(keysFile(this.store.dir));
    if (teamStore.kind === 'redis') {
      const { openSharedAgentKeys } = await import('./orchestrator/keys-shared.ts');
      const team = openSharedAgentKeys(teamStore);
      team.start();
      this.teamKeys = team;
      await agentKeys.shareWith(team);
    }
    const listener = buildRequestListener({
      engine: () => this.engine,
      store: this.store,
      adminToken: this.adminToken,
      listenPort: () => this.listener.port,
      listen: { pinned: this.options.port !== undefined, moved: () => this.moving, followed: () => this.followed },
      agents: {
        orchestrator: this.orchestrator,
        wal: this.wal,
        keys: agentKeys,
        metrics: this.metrics,
        heartbeatMs: () => this.store.config.orchestrator.sse_heartbeat_ms,
      },
    });
    this.listener = new Listener(listener, this.store.file);
    const earlier = await tail.catch((err: unknown) => {
      logger.warn(`the request log of the previous run could not be read: ${(err as Error).message}`);
      return { entries: [], skipped: 0 };
    });
    this.requestLog.restore(earlier.entries);
    if (earlier.skipped > 0)
      logger.warn(`requests.jsonl: ${earlier.skipped} line(s) at its end are not request log entries; skipped`);
    await this.listener.listen(
      this.options.port ?? this.store.config.listen_port,
      this.options.host ?? this.store.config.listen_host,
    );
    await this.recordListening();
    // Store "redis": the team's request log and usage (on the gateway's connection), named after this instance.
    if (this.teamConnection) await this.startTeam(this.teamConnection);
    this.health = new HealthChecker(this.engine);
    this.health.start();
    // A burst's heap back once it is over (nothing allocates after it, so V8 alone would keep it).
    this.memoryTrim = startMemoryTrim(
      () => this.requestLog.added,
      (r) =>
        logger.debug(
          r.reason === 'native'
            ? `memory trim (malloc_trim): RSS ${mib(r.rssBeforeBytes)} -> ${mib(r.rssAfterBytes)} MiB in ${r.ms.toFixed(0)} ms`
            : `memory trim (${r.reason}): heap ${mib(r.heapBeforeBytes)} -> ${mib(r.heapAfterBytes)} MiB in ${r.ms.toFixed(0)} ms`,
        ),
    );
    this.store.on('change', (next, prev) => void this.applyConfig(next, prev));
    this.store.on('invalid', (problems) => {
      logger.error(
        `config.json was edited but is invalid; the last good config stays in force until it is fixed:\n${problems.map((p) => `  - ${problemToText(p)}`).join('\n')}`,
      );
    });
    this.store.watch();
  }

  /** The Redis connections for the metrics (store "redis"): the gateway's state and the agents' store. */
  private storeSources(): StoreSource[] {
    const conn = this.teamConnection;
    if (!conn) return [];
    const agents = this.orchestrator.store.status();
    return [
      {
        part: 'gateway',
        up: conn.usable(),
        failOpenSeconds: conn.failOpenSeconds(),
        trips: conn.breaker.trips,
        calls: conn.calls,
      },
      ...(agents.kind === 'redis' ? [{ part: 'agents' as const, up: agents.up }] : []),
    ];
  }

  /**
   * Store "redis" (issue 36): this instance's requests go to the team's request stream (the live log view's buffer)
   * and its usage to the team's rollups in Redis, both on the gateway's connection; summaries, budgets and the raw
   * records are read from there. The instance's name: SWITCHBOARD_INSTANCE, else host:port.
   */
  private async startTeam(conn: RedisConnection): Promise<void> {
    const instance = process.env.SWITCHBOARD_INSTANCE?.trim().slice(0, 128) || `${os.hostname()}:${this.listener.port}`;
    const [{ TeamLog }, { RedisTeamRollups }] = await Promise.all([
      import('./store/team-log.ts'),
      import('./usage/team-redis.ts'),
    ]);
    this.requestLog.instance = instance;
    const log = new TeamLog({ redis: conn, log: this.requestLog, instance });
    this.requestLog.team = log;
    const rollups = new RedisTeamRollups(conn, () => this.store.config.usage.rollup_days);
    const usage = this.usage.attachTeam(rollups, instance, async (limit, before) => {
      const h = await log.history(limit, before);
      if (!h) return null;
      const data = h.entries.flatMap((e) => this.usage.usageRecordOf(e) ?? []);
      return { data, has_more: h.more };
    });
    this.teamLog = log;
    this.teamQueues = () => [
      { stream: 'requests', ...log.queue() },
      { stream: 'usage', ...usage.queue() },
    ];
  }

  /** What waits to reach Redis (store "redis"), for the metrics. */
  private teamQueues: () => TeamQueueSource[] = () => [];

  /** A tool call waiting for approval becomes a notification (desktop, and `notification` on /admin/v1/events). */
  private notifyApprovals(): () => void {
    return this.orchestrator.store.subscribe((e) => {
      if (e.type !== 'approval_required' || !('call_id' in e)) return;
      const agent = this.orchestrator.store.agents.get(e.agent_id)?.name ?? e.agent_id;
      this.notifications.notify({
        kind: 'approval_required',
        subject: `${e.task_id}/${e.call_id}`,
        title: `Agent "${agent}" asks to run ${e.tool}`,
        message: `Approve or deny it on the Agents page (task ${e.task_id}); without a decision it is denied at ${e.expires_at}.`,
      });
    });
  }

  /** What a valid config does that is likely not meant (a rule naming a disabled provider), said in the log. */
  private warnAbout(config: Config): void {
    for (const w of configWarnings(config)) logger.warn(`config.json: ${w.path} ${w.message}`);
  }

  private async applyConfig(next: Config, prev: Config): Promise<void> {
    this.engine.update(next);
    this.orchestrator.configure();
    this.usage.configure();
    this.configureRequestLog(next);
    this.engine.capture?.configure(next.capture);
    if (next.health_check.interval_ms !== prev.health_check.interval_ms) this.health.start();
    logger.info(`config reloaded from ${this.store.file}`);
    this.warnAbout(next);
    const portChanged = next.listen_port !== prev.listen_port || next.listen_host !== prev.listen_host;
    if (portChanged && this.options.port === undefined) {
      let settle: (failed: string | null) => void = () => {};
      let follow: (tools: PortFollow[]) => void = () => {};
      this.moving = new Promise((resolve) => (settle = resolve));
      this.followed = new Promise((resolve) => (follow = resolve));
      const from = this.listener.port;
      try {
        // Tools Connect pointed at the old port follow before the save is answered (which waits for `followed`).
        await this.listener.listen(next.listen_port, this.options.host ?? next.listen_host, () => {
          void this.followTools(from).then(follow, () => follow([]));
          settle(null);
        });
        logger.info(`now listening on ${this.listener.url}`);
        await this.recordListening();
      } catch (err) {
        follow([]);
        settle((err as Error).message);
        logger.error(
          `could not move to port ${next.listen_port}: ${(err as Error).message} Still listening on ${this.listener.url}.`,
        );
      }
    }
  }

  /** listening.json beside config.json: where this Switchboard listens, for `switchboard mcp list` (and the like). */
  private async recordListening(): Promise<void> {
    const { url, port } = this.listener;
    await writeListening(this.store.dir, { url, port, host: this.listener.host }).catch((err: Error) =>
      logger.warn(`could not write listening.json in ${this.store.dir}: ${err.message}`),
    );
  }

  /**
   * After a move from port `from`: the tools Connect pointed at Switchboard follow it (main/connect/connect.ts
   * followPort), loaded only when Connect has pointed some tool here (its connect/ folder exists).
   */
  private async followTools(from: number): Promise<PortFollow[]> {
    const port = this.listener.port;
    if (port === from) return [];
    try {
      await fs.access(path.join(this.store.dir, 'connect'));
    } catch {
      return [];
    }
    const { followPort } = await import('./connect/connect.ts');
    const done = await followPort({ configDir: this.store.dir, port }, from);
    for (const t of done) logger.info(`connect: ${t.message}`);
    return done;
  }

  private configureRequestLog(cfg: Config): void {
    this.requestLog.configureFile({
      enabled: cfg.log_requests,
      file: path.join(this.store.dir, 'requests.jsonl'),
      maxBytes: Math.round(cfg.log_file.max_mb * 1024 * 1024),
      keep: cfg.log_file.keep,
    });
  }

  private announceFirstRun(): void {
    logger.info(
      `first run: wrote a default config to ${this.store.file}; its providers are disabled until you give them a key or an address`,
    );
    for (const { provider, variable } of keysOfferedByEnv(process.env)) {
      logger.info(
        `found ${variable} in the environment (not copied). To use it, set provider "${provider}" to "api_key": "env:${variable}" and "enabled": true in ${this.store.file}`,
      );
    }
  }

  async stop(): Promise<void> {
    if (this.store) await clearListening(this.store.dir).catch(() => undefined);
    this.store?.close();
    this.health?.stop();
    this.memoryTrim?.stop();
    this.forgetApprovals?.();
    await this.orchestrator?.close();
    await this.listener?.close();
    // The last requests' log entries, to the usage store and the team's log before they close (delivered per turn).
    this.requestLog.deliver();
    // The team's log and usage first: they use the gateway's connection, closed with it.
    await this.teamLog?.close();
    await this.usage?.close();
    if (this.engine) await closeGateway(this.engine); // its shared store's Redis connections, in Redis mode
    await this.teamKeys?.close();
    await this.wal?.close();
    await this.engine?.close();
    this.forgetAdminToken?.();
    this.requestLog.closeFile();
  }
}
