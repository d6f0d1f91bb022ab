// The agent API's request bodies and records (spec/orchestrator.md): zod schemas shared by server and clients.
import { z } from 'zod';

export const BUILTIN_TOOLS = ['current_time', 'calculator', 'http_get', 'read_file', 'write_file', 'list_files'] as const;

export const AgentConfigSchema = z.strictObject({
  max_tokens: z.number().int().min(1).max(200_000).default(1024),
  temperature: z.number().min(0).max(2).default(0.7),
  max_iterations: z.number().int().min(1).max(100).default(10),
});

export const CreateAgentSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  system_prompt: z.string().max(100_000).default(''),
  model: z.string().min(1).max(200),
  tools: z.array(z.string().min(1)).max(50).default([]),
  config: AgentConfigSchema.default({ max_tokens: 1024, temperature: 0.7, max_iterations: 10 }),
});
export type CreateAgent = z.infer<typeof CreateAgentSchema>;

/** PUT replaces the fields given; the rest stay. */
export const UpdateAgentSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  system_prompt: z.string().max(100_000).optional(),
  model: z.string().min(1).max(200).optional(),
  tools: z.array(z.string().min(1)).max(50).optional(),
  config: z
    .strictObject({
      max_tokens: z.number().int().min(1).max(200_000).optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_iterations: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
});
export type UpdateAgent = z.infer<typeof UpdateAgentSchema>;

export const RunTaskSchema = z.strictObject({
  message: z.string().min(1).max(1_000_000),
  context: z
    .looseObject({
      output_format: z.string().max(100).optional(),
      max_length: z.number().int().min(1).optional(),
    })
    .default({}),
});
export type RunTask = z.infer<typeof RunTaskSchema>;

export const AGENT_STATUSES = ['idle', 'running', 'completed'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const TASK_STATUSES = ['queued', 'running', 'completed', 'failed', 'stopped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type Agent = {
  id: string;
  name: string;
  system_prompt: string;
  model: string;
  tools: string[];
  config: { max_tokens: number; temperature: number; max_iterations: number };
  status: AgentStatus;
  tenant: string;
  created_at: string;
  updated_at: string;
  /** When its last task was submitted (the 15 s run window counts from here). */
  last_run_at: string | null;
};

export type TokenUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

export type Task = {
  task_id: string;
  agent_id: string;
  tenant: string;
  status: TaskStatus;
  message: string;
  context: Record<string, unknown>;
  result: string | null;
  error: string | null;
  /** final_answer | max_iterations when completed; stopped | interrupted | error otherwise. */
  stop_reason: string | null;
  iterations: number;
  usage: TokenUsage;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

export const EVENT_TYPES = ['thinking', 'tool_call', 'tool_result', 'output', 'completed', 'failed', 'stopped'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One frame of GET /events: the spec's fields plus where it comes from. */
export type AgentEvent = {
  id: number;
  type: EventType;
  task_id: string;
  agent_id: string;
  tenant: string;
  workflow_id: string | null;
  time: string;
  content?: string;
  tool?: string;
  input?: Record<string, unknown>;
  output?: string;
  error?: string;
};
