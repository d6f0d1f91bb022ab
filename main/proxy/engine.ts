// The routing engine's live state: config, compiled router, providers and the request log, swapped on reload.
import type { Config } from '../../shared/config.ts';
import { effectiveStore, redisPassword } from '../../shared/config.ts';
import { randomBytes } from 'node:crypto';
import type { CaptureStore } from '../insight/capture.ts';
import { addSecretSource } from '../observability/redact.ts';
import type { RequestLog } from '../observability/request-log.ts';
import { ModelCatalog } from './models.ts';
import { ProviderPool } from './provider-pool.ts';
import { Router } from './routing.ts';
import type { PriceBook } from './strategy/choose.ts';

/** The budgets' check before a model request is forwarded (main/usage/budgets.ts): throws 402 budget_exceeded. */
export interface BudgetGate {
  /** `key`: the credential's name in gateway mode (budgets may name it), else null. */
  check(app: string | null, key?: string | null): void;
}

/** A notice the engine gives (the app hands it to the notifier: desktop notification, GET /admin/v1/events). */
export type EngineNotice = {
  kind: 'secret_found';
  subject: string;
  title: string;
  message: string;
  provider: string | null;
  app: string | null;
};

export class Engine {
  router: Router;
  readonly pool: ProviderPool;
  readonly models: ModelCatalog;
  /** Pause from the tray: requests get 503 routing_paused until resumed. */
  paused = false;
  /** The enforced budgets (set by the usage store; null: none checked). */
  budgets: BudgetGate | null = null;
  /** Where the engine's notices go (set by the app; null: logged only). */
  notice: ((n: EngineNotice) => void) | null = null;
  /** Request capture (config.json `capture`; set by the app; null: nothing captured). */
  capture: CaptureStore | null = null;
  /**
   * Marks a request as a replay of a captured one (POST /admin/v1/replay): the value of its x-switchboard-replay
   * header is `<log id>.<this token>`; a client without the token cannot mark its requests as replays.
   */
  readonly replayToken = randomBytes(16).toString('hex');
  /** Prices per million tokens, for the cheapest and balanced strategies (set by the usage room; null: none known). */
  prices: PriceBook | null = null;
  private readonly forgetSecrets: () => void;

  constructor(
    public config: Config,
    readonly configPath: string,
    readonly requestLog: RequestLog,
  ) {
    this.router = new Router(config, configPath);
    this.pool = new ProviderPool(config);
    this.models = new ModelCatalog(this.pool);
    this.forgetSecrets = addSecretSource(() => this.secrets());
  }

  /**
   * The secrets of the running config, read now (an `env:` value as the environment has it): each provider's key and
   * credential headers, the gateway's JWT secret, the Redis store's password. Error texts are scrubbed of them (observability/redact.ts).
   */
  *secrets(): Iterable<string | undefined> {
    for (const p of this.pool.all()) yield* p.secrets();
    const jwt = this.config.gateway.jwt?.secret;
    if (jwt) yield jwt.startsWith('env:') ? process.env[jwt.slice(4)] : jwt;
    // The shared store's Redis password (config.json's store.url, or SWITCHBOARD_REDIS_URL).
    const store = effectiveStore(this.config.store, process.env.SWITCHBOARD_REDIS_URL);
    if (store.kind === 'redis') yield redisPassword(store.url) ?? undefined;
  }

  get maxBodyBytes(): number {
    return Math.round(this.config.max_body_mb * 1024 * 1024);
  }

  update(config: Config): void {
    this.config = config;
    this.router = new Router(config, this.configPath);
    this.pool.update(config);
    this.models.invalidate();
  }

  close(): Promise<void> {
    this.forgetSecrets();
    return this.pool.close();
  }
}
