// Usage records for the usage store's tests (hand-made: the shape of shared/usage.ts UsageRecord).
import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../../shared/usage.ts';

export function rec(over: Partial<UsageRecord> & { time: string }): UsageRecord {
  return {
    id: randomUUID(),
    app: 'app-a',
    provider: 'openai',
    model: 'gpt-4o-mini',
    requested_model: 'gpt-4o-mini',
    path: '/v1/chat/completions',
    status: 200,
    stream: false,
    latency_ms: 100,
    prompt_tokens: 10,
    completion_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.001,
    cost_source: 'price_table',
    ...over,
  };
}
