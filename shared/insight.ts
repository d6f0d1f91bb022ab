// The config.json sections and admin API shapes of issue 38 (README, "Secret guard", "Request capture", "Replay and
// compare", "Where the tokens went"): the secret guard's policies, request capture, replays and token attribution.
import { z } from 'zod';

// --- secret_guard ---

/** What the secret guard does with a request that holds a secret, in order of strictness. */
export const GUARD_POLICIES = ['off', 'warn', 'redact', 'block'] as const;
export type GuardPolicy = (typeof GUARD_POLICIES)[number];

const policy = z.enum(GUARD_POLICIES);
/** Provider and app names are config.json's own; at most 200 entries each (a count cap: the table is config). */
const policyTable = z
  .record(z.string().min(1).max(128), policy)
  .refine((t) => Object.keys(t).length <= 200, { message: 'must list at most 200 names' });

/**
 * `secret_guard`: the policy for requests to cloud providers (`default`), per provider and per app. A local provider
 * (type ollama, or a base_url on loopback) is exempt unless `providers` names it. See the README's "Secret guard".
 */
export const SECRET_GUARD_DEFAULTS = { default: 'warn' as GuardPolicy, providers: {}, apps: {} };
export const SecretGuardConfigSchema = z.strictObject({
  default: policy.default(SECRET_GUARD_DEFAULTS.default),
  providers: policyTable.default({}),
  apps: policyTable.default({}),
});
export type SecretGuardConfig = z.infer<typeof SecretGuardConfigSchema>;

/** What the guard found in one request, as the request log keeps it: rule ids and counts, never a value. */
export type GuardFinding = { rule: string; count: number };
export type GuardRecord = {
  /** The policy that applied to the provider that answered (or to the last one tried). */
  policy: Exclude<GuardPolicy, 'off'>;
  /** What was done: `warned` (sent as it was), `redacted` (placeholders sent, originals restored), `blocked`. */
  action: 'warned' | 'redacted' | 'blocked';
  found: GuardFinding[];
};

// --- capture ---

/** `capture`: keep the bodies of the last requests (opt-in), for the log drawer and replays. */
export const CAPTURE_DEFAULTS = { enabled: false, apps: [] as string[], max_requests: 200, max_mb: 100, days: 7 };
export const CaptureConfigSchema = z.strictObject({
  enabled: z.boolean().default(CAPTURE_DEFAULTS.enabled),
  /** Only these apps (matched as app rules match: case, path and .exe/.app ignored); empty: every app. */
  apps: z.array(z.string().min(1).max(128)).max(100).default([]),
  max_requests: z.number().int().min(1).max(100_000).default(CAPTURE_DEFAULTS.max_requests),
  max_mb: z.number().positive().max(100_000).default(CAPTURE_DEFAULTS.max_mb),
  days: z.number().positive().max(3650).default(CAPTURE_DEFAULTS.days),
});
export type CaptureConfig = z.infer<typeof CaptureConfigSchema>;
