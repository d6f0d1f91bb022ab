// How fast a provider answers a model, measured from real traffic (time to first token, tokens a second once it
// streams) and from its health checks (time to answer its model list, for models it has served nothing of yet),
// decayed over time: the `fastest` and `balanced` strategies read it (docs/routing.md, "Routing strategies").
//
// Each figure is a moving average whose weight for a new sample grows with the time since the last one (half of the
// old estimate is forgotten every HALF_LIFE_MS of silence, and a sample always counts at least MIN_WEIGHT), so a
// provider that was slow an hour ago is judged by what it does now. An estimate with no sample for STALE_MS is
// forgotten: the provider is measured again (as an unmeasured one, it is tried first), as LiteLLM's latency-based
// routing lets its latency records expire.

/** Half of an estimate is forgotten every this many ms without a sample. */
export const HALF_LIFE_MS = 5 * 60_000;
/** The least weight a new sample has. */
export const MIN_WEIGHT = 0.3;
/** An estimate without a sample for this long is forgotten. */
export const STALE_MS = 15 * 60_000;
/** A stream measures a speed only with this many tokens, streamed over this long (else the figure is noise). */
export const MIN_SPEED_TOKENS = 8;
export const MIN_SPEED_MS = 20;
/** The most models one provider keeps figures for (then the oldest are dropped). */
const MAX_MODELS = 200;
/** A model name longer than this is not measured (names are the client's: a figure per name is kept). */
const MAX_MODEL_LENGTH = 256;

class Figure {
  /** Milliseconds to the first byte of the answer (for a whole reply: to its end). */
  ttfb: number;
  /** Tokens a second while streaming (-1: not measured). */
  tps = -1;
  at: number;
  samples = 1;

  constructor(ttfb: number, now: number) {
    this.ttfb = ttfb;
    this.at = now;
  }

  add(ttfb: number, tps: number, now: number): void {
    const w = Math.max(MIN_WEIGHT, 1 - 2 ** (-(now - this.at) / HALF_LIFE_MS));
    this.ttfb += w * (ttfb - this.ttfb);
    if (tps > 0) this.tps = this.tps < 0 ? tps : this.tps + w * (tps - this.tps);
    this.at = now;
    this.samples++;
  }
}

/** One provider's figures, per model, and its health checks' (the fallback for a model not measured yet). */
export class LatencyBook {
  private readonly models = new Map<string, Figure>();
  private health: Figure | null = null;

  /**
   * A reply that ended well: `ttfbMs` to its first byte, `durationMs` to its end, `completionTokens` when known.
   * Streams of at least MIN_SPEED_TOKENS tokens over MIN_SPEED_MS give a speed (the tokens after the first over the
   * time after the first byte); a whole reply, or a short stream, only a time (a whole reply's first byte is its end).
   */
  record(
    model: string,
    ttfbMs: number,
    durationMs: number,
    completionTokens: number | null,
    streamed: boolean,
    now: number,
  ): void {
    if (model.length > MAX_MODEL_LENGTH) return;
    const streaming = durationMs - ttfbMs;
    const tps =
      streamed && completionTokens !== null && completionTokens >= MIN_SPEED_TOKENS && streaming >= MIN_SPEED_MS
        ? (completionTokens - 1) / (streaming / 1000)
        : -1;
    const f = this.models.get(model);
    if (f && now - f.at < STALE_MS) {
      f.add(ttfbMs, tps, now);
      return;
    }
    if (f) this.models.delete(model);
    else if (this.models.size >= MAX_MODELS) this.models.delete(this.models.keys().next().value!);
    const fresh = new Figure(ttfbMs, now);
    if (tps > 0) fresh.tps = tps;
    this.models.set(model, fresh);
  }

  /** A health check answered in `ms`. */
  recordHealth(ms: number, now: number): void {
    if (this.health && now - this.health.at < STALE_MS) this.health.add(ms, -1, now);
    else this.health = new Figure(ms, now);
  }

  /**
   * The expected time in ms to answer `outTokens` of `model`: its time to first byte plus the tokens at its speed (when
   * measured); -1 when nothing recent is known of it (not even a health check).
   */
  estimate(model: string, outTokens: number, now: number): number {
    const f = this.models.get(model);
    if (f !== undefined && now - f.at < STALE_MS) return f.tps > 0 ? f.ttfb + (outTokens * 1000) / f.tps : f.ttfb;
    const h = this.health;
    return h !== null && now - h.at < STALE_MS ? h.ttfb : -1;
  }

  /** What is known of `model`, for the route tester (null: nothing recent). */
  snapshot(model: string, now: number): LatencySnapshot | null {
    const f = this.models.get(model);
    if (f !== undefined && now - f.at < STALE_MS)
      return {
        source: 'traffic',
        ttfb_ms: Math.round(f.ttfb),
        tokens_per_s: f.tps > 0 ? Math.round(f.tps * 10) / 10 : null,
        samples: f.samples,
        age_s: Math.round((now - f.at) / 1000),
      };
    const h = this.health;
    if (h !== null && now - h.at < STALE_MS)
      return {
        source: 'health_check',
        ttfb_ms: Math.round(h.ttfb),
        tokens_per_s: null,
        samples: h.samples,
        age_s: Math.round((now - h.at) / 1000),
      };
    return null;
  }
}

export type LatencySnapshot = {
  /** `traffic`: the model's own replies; `health_check`: the provider's model list, for a model not measured yet. */
  source: 'traffic' | 'health_check';
  ttfb_ms: number;
  tokens_per_s: number | null;
  samples: number;
  age_s: number;
};
