// Shapes of the admin API (/admin/v1): provider status, request log entries, route explanations.
import { z } from 'zod';
import type { Config } from './config.ts';

export const ProviderStateSchema = z.enum(['ok', 'failed', 'unknown', 'disabled']);
export type ProviderState = z.infer<typeof ProviderStateSchema>;
export type CircuitState = 'closed' | 'open' | 'half_open';

export type ProviderStatus = {
  name: string;
  type: string;
  base_url: string;
  enabled: boolean;
  state: ProviderState;
  circuit: CircuitState;
  consecutive_failures: number;
  last_error: string | null;
  last_latency_ms: number | null;
  last_checked_at: string | null;
  last_ok_at: string | null;
  circuit_opens_until: string | null;
};

export type AttemptLog = {
  provider: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
};

export type RequestLogEntry = {
  id: string;
  time: string;
  method: string;
  path: string;
  app: string | null;
  app_source: AppSource | null;
  requested_model: string | null;
  routed_model: string | null;
  provider: string | null;
  route: string | null;
  attempts: AttemptLog[];
  status: number;
  error_code: string | null;
  stream: boolean;
  latency_ms: number;
  ttfb_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
};

export type AppSource = 'header' | 'x-title' | 'api-key' | 'process' | 'user-agent';

export type RouteCandidate = {
  provider: string;
  reason: string;
};
export type RouteSkip = { provider: string; reason: string };

export type RouteExplanation = {
  requested_model: string;
  model: string;
  app: string | null;
  app_rule: { app: string; default_provider: string; model_override?: string } | null;
  candidates: RouteCandidate[];
  skipped: RouteSkip[];
  steps: string[];
};

export type StatusResponse = {
  version: string;
  listen_port: number;
  config_path: string;
  config_error: string[] | null;
  paused: boolean;
  providers: ProviderStatus[];
  routing: Config['routing'];
  app_rules: Config['app_rules'];
  recent_logs: RequestLogEntry[];
};
