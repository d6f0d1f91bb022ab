// The secret guard of one request (docs/insight.md, "Secret guard"): made by the front door only when some provider's policy
// is not "off" (guardAlwaysOff), it scans the request's bytes once, at the first candidate whose policy is not off,
// and answers each candidate's plan: as it is (no secret, or "warn"), with the secrets replaced by placeholders and
// restored in the answer ("redact"), or refused ("block": the candidate is skipped, and the client gets 400
// secret_detected naming what was found, never the value, when no candidate may take it).
import type { ServerResponse } from 'node:http';
import type { Config } from '../../../shared/config.ts';
import type { RequestLogEntry } from '../../../shared/admin.ts';
import type { GuardPolicy, GuardRecord } from '../../../shared/insight.ts';
import { logger } from '../../observability/logger.ts';
import type { Engine } from '../engine.ts';
import type { HubContentPart, HubRequest } from '../formats/hub/index.ts';
import { CandidateRefusal, type PlanTarget } from '../forward/index.ts';
import { guardPolicy } from './policy.ts';
import { redactBody, type Redaction } from './redact.ts';
import { restoringResponse } from './restore.ts';
import { ruleTitle } from './rules.ts';
import { type Finding, scanSecrets } from './scan.ts';

export { guardAlwaysOff, guardPolicy, isLocalTarget } from './policy.ts';

/**
 * The guard's decision in the request's log entry (rule ids and counts, never a value), and said: a warning line in the
 * log for every request it found secrets in, and a notice (at most one per app and rule set a minute: the notifier's
 * interval) when they were sent as they were ("warn").
 */
export function noteGuard(engine: Engine, entry: RequestLogEntry, record: GuardRecord): void {
  entry.guard = record;
  const kinds = record.found.map((f) => `${ruleTitle(f.rule)}${f.count > 1 ? ` ×${f.count}` : ''}`).join(', ');
  const to = entry.provider ?? entry.attempts.at(-1)?.provider ?? 'a provider';
  const verb = record.action === 'warned' ? 'sent' : record.action;
  logger.warn(
    `secret guard: a request of ${entry.app ?? 'an unnamed app'} to ${to} held ${kinds}: ${verb} (policy ${record.policy})`,
  );
  if (record.action !== 'warned') return;
  engine.notice?.({
    kind: 'secret_found',
    subject: `${entry.app ?? ''}\u0000${record.found.map((f) => f.rule).join(',')}`,
    title: `A secret went to ${to}`,
    message: `A request of ${entry.app ?? 'an unnamed app'} held ${kinds}. The secret guard's policy for it is "warn": set it to "redact" or "block" (Settings, Secret guard) to keep secrets on this machine.`,
    provider: entry.provider,
    app: entry.app,
  });
}

/** 400 secret_detected: the request holds secrets and this provider's policy blocks them. */
export class SecretBlocked extends CandidateRefusal {
  constructor(found: GuardRecord['found'], provider: string, policyFrom: string) {
    const n = found.reduce((a, f) => a + f.count, 0);
    const kinds = found.map((f) => `${ruleTitle(f.rule)}${f.count > 1 ? ` ×${f.count}` : ''}`).join(', ');
    super(
      'secret_detected',
      `Switchboard's secret guard kept this request from provider "${provider}": it holds ${n === 1 ? 'a secret' : `${n} secrets`} (${kinds}), and ${policyFrom} is "block".`,
      undefined,
      { found, provider },
    );
  }
}

/** The texts of a request's tool results (where high-entropy strings count). */
export function toolResultTexts(hub: HubRequest | null): string[] {
  if (!hub) return [];
  const out: string[] = [];
  for (const m of hub.messages) {
    if (m.role !== 'tool') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else for (const p of m.content as HubContentPart[]) if (p.type === 'text') out.push(p.text);
  }
  return out;
}

/**
 * A body as request capture stores it: every secret the guard finds replaced by its placeholder, whatever the policy
 * (docs/insight.md, "Request capture": a capture never holds what the guard would find; a replay sends the placeholders).
 */
export function redactedForCapture(body: Buffer, hub: HubRequest | null): Buffer {
  const found = scanSecrets(body, toolResultTexts(hub));
  return found.length === 0 ? body : redactBody(body, found).body;
}

/** What one candidate gets. */
export type GuardVerdict =
  { kind: 'pass' } | { kind: 'redact'; redaction: Redaction; rewriteReply: (res: ServerResponse) => ServerResponse };

const PASS: GuardVerdict = { kind: 'pass' };

export class RequestGuard {
  private findings: readonly Finding[] | null = null;
  private redaction: Redaction | null = null;
  /** The decision for the last candidate planned (the one that answered, or the last tried): the request log's. */
  record: GuardRecord | null = null;

  constructor(
    private readonly config: Config,
    private readonly app: string | null,
    private readonly body: Buffer,
    private readonly hub: HubRequest | null,
  ) {}

  /** The secrets in the request (scanned on first use). */
  found(): readonly Finding[] {
    return (this.findings ??= scanSecrets(this.body, toolResultTexts(this.hub)));
  }

  /** What the request's findings count per rule. */
  summary(): GuardRecord['found'] {
    const counts = new Map<string, number>();
    for (const f of this.found()) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
    return [...counts].map(([rule, count]) => ({ rule, count }));
  }

  /** The verdict for one candidate; throws SecretBlocked when its policy blocks a request that holds a secret. */
  check(t: PlanTarget): GuardVerdict {
    const policy = guardPolicy(this.config, t, this.app);
    if (policy === 'off' || this.found().length === 0) {
      this.record = null;
      return PASS;
    }
    const found = this.summary();
    if (policy === 'warn') {
      this.record = { policy, action: 'warned', found };
      return PASS;
    }
    if (policy === 'block') {
      this.record = { policy, action: 'blocked', found };
      throw new SecretBlocked(found, t.name, this.policySource(t, policy));
    }
    this.record = { policy, action: 'redacted', found };
    const redaction = (this.redaction ??= redactBody(this.body, this.found()));
    return { kind: 'redact', redaction, rewriteReply: (res) => restoringResponse(res, redaction.table) };
  }

  /** Which setting gave the policy, in words (for the block error). */
  private policySource(t: PlanTarget, policy: GuardPolicy): string {
    const g = this.config.secret_guard;
    if (g.providers[t.name] === policy) return `secret_guard.providers["${t.name}"]`;
    if (this.app !== null && Object.entries(g.apps).some(([, p]) => p === policy))
      return `the app's secret_guard policy`;
    return 'secret_guard.default';
  }
}
