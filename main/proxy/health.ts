// Active health checks: each enabled provider's models endpoint on an interval sets its ok/failed state, and the
// list it answers is the one model listings use (models.ts).
import { performance } from 'node:perf_hooks';
import type { Engine } from './engine.ts';
import { isRetryableStatus } from './forward/index.ts';
import { fetchModels } from './models.ts';

export class HealthChecker {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly engine: Engine) {}

  start(): void {
    this.stop();
    const { interval_ms } = this.engine.config.health_check;
    if (interval_ms <= 0) return;
    void this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), interval_ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async checkAll(): Promise<void> {
    const { timeout_ms } = this.engine.config.health_check;
    await Promise.all(
      this.engine.pool
        .all()
        .filter((p) => p.config.enabled)
        .map(async (p) => {
          const t0 = performance.now();
          try {
            const ids = await fetchModels(p, timeout_ms);
            const ms = performance.now() - t0;
            p.recordSuccess(ms);
            p.latency?.recordHealth(ms, Date.now()); // the speed of a model not measured yet (strategy/latency.ts)
            this.engine.models.record(p.name, ids, null); // the listings' copy, refreshed with the check
          } catch (err) {
            this.engine.models.record(p.name, null, (err as Error).message);
            const status = (err as { status?: number }).status;
            if (status && !isRetryableStatus(status)) {
              p.recordRefusal(`health check: ${(err as Error).message}`, performance.now() - t0);
              return;
            }
            const message = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
            const timedOut = /timeout|aborted/i.test(message);
            p.recordFailure(
              {
                retryable: true,
                status: null,
                kind: timedOut ? 'timeout' : 'connect',
                message: `health check: ${message}`,
              },
              performance.now() - t0,
            );
          }
        }),
    );
  }
}
