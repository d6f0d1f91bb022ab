// The agent API's request bodies and records (spec/orchestrator.md): zod schemas shared by server and clients.
import { z } from 'zod';

export const BUILTIN_TOOLS = [
  'current_time',
  'calculator',
  'http_get',
  'read_file',
  'write_file',
  'list_files',
] as const;

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
  /** Set on tasks a workflow step or a swarm started; absent on tasks a client started. */
  origin?: TaskOrigin;
};

export const EVENT_TYPES = [
  'thinking',
  'tool_call',
  'tool_result',
  'output',
  'completed',
  'failed',
  'stopped',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One frame of GET /events: its type's fields plus where it comes from. */
export type AgentEvent = {
  id: number;
  type: EventType;
  task_id: string;
  agent_id: string;
  tenant: string;
  workflow_id: string | null;
  /** With workflow_id: the run; with swarm_task_id: the swarm. Absent on events of a client's own task. */
  run_id?: string;
  swarm_id?: string;
  swarm_task_id?: string;
  time: string;
  content?: string;
  tool?: string;
  input?: Record<string, unknown>;
  output?: string;
  error?: string;
};

// ---- workflows and swarms (issue 7)

/** What started a task: a client (no origin), a workflow step, or a swarm (coordinator turn, delegation, vote). */
export type TaskOrigin =
  | { kind: 'workflow'; workflow_id: string; run_id: string; step: string; attempt: number }
  | { kind: 'swarm'; swarm_id: string; swarm_task_id: string; round: number; role: 'coordinator' | 'member' | 'vote' };

export const ERROR_POLICIES = ['fail', 'continue', 'retry'] as const;
export type ErrorPolicy = (typeof ERROR_POLICIES)[number];
export const MAX_RETRIES_LIMIT = 10;

/**
 * Types only: what a step's values mean (known agent, known policy, bounds, templates) is checked by the service,
 * so one 422 workflow_invalid lists every problem at once.
 */
export const CreateWorkflowSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).default(''),
  steps: z.array(
    z.strictObject({
      name: z.string().trim().min(1).max(200),
      agent: z.string().min(1).max(200),
      prompt: z.string().min(1).max(1_000_000),
      error_policy: z.string().default('fail'),
      max_retries: z.number().int().optional(),
    }),
  ),
});

export const RunWorkflowSchema = z.strictObject({ input: z.record(z.string(), z.unknown()).default({}) });

export type WorkflowStep = {
  name: string;
  agent: string;
  prompt: string;
  error_policy: ErrorPolicy;
  max_retries: number;
};

export type Workflow = {
  id: string;
  name: string;
  description: string;
  steps: WorkflowStep[];
  tenant: string;
  created_at: string;
};

export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const STEP_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export type StepRun = {
  name: string;
  agent: string;
  agent_id: string | null;
  status: StepStatus;
  /** The prompt after templating (null until the step starts). */
  prompt: string | null;
  output: string | null;
  /** Attempts started (an attempt cut off by a restart counts too). */
  attempts: number;
  task_ids: string[];
  /** One line per failed attempt. */
  errors: string[];
  usage: TokenUsage;
  started_at: string | null;
  finished_at: string | null;
};

export type WorkflowRun = {
  run_id: string;
  workflow_id: string;
  workflow: string;
  tenant: string;
  status: RunStatus;
  input: Record<string, unknown>;
  /** The definition's steps at the time of the run (a later change of the workflow does not affect it). */
  definition: WorkflowStep[];
  steps: StepRun[];
  /** The last completed step's output. */
  output: string | null;
  error: string | null;
  usage: TokenUsage;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

export const CreateSwarmSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  coordinator: z.string().min(1).max(200),
  agents: z.array(z.string().min(1).max(200)).max(20),
  config: z
    .strictObject({
      max_rounds: z.number().int().default(3),
      consensus_required: z.boolean().default(false),
    })
    .default({ max_rounds: 3, consensus_required: false }),
});
export const MAX_ROUNDS_LIMIT = 20;

export const SwarmTaskSchema = z.strictObject({
  message: z.string().min(1).max(1_000_000),
  context: z.record(z.string(), z.unknown()).default({}),
});

export type Swarm = {
  id: string;
  name: string;
  coordinator: string;
  agents: string[];
  config: { max_rounds: number; consensus_required: boolean };
  /** The agents' ids, resolved when the swarm is created (renaming an agent later does not break the swarm). */
  coordinator_id: string;
  agent_ids: string[];
  tenant: string;
  created_at: string;
};

export type SwarmContribution = {
  agent: string;
  agent_id: string;
  task_id: string;
  instruction: string;
  status: TaskStatus | 'queued';
  output: string | null;
};
export type SwarmVote = { agent: string; agent_id: string; task_id: string; approve: boolean; reasons: string };
export type SwarmRound = {
  round: number;
  coordinator_task_id: string | null;
  contributions: SwarmContribution[];
  proposal: string | null;
  votes: SwarmVote[];
  approvals: number;
};

export type SwarmTask = {
  id: string;
  swarm_id: string;
  swarm: string;
  tenant: string;
  status: RunStatus;
  message: string;
  context: Record<string, unknown>;
  rounds: SwarmRound[];
  final_answer: string | null;
  /** true/false with consensus_required; null when the swarm does not ask for it. */
  consensus: boolean | null;
  error: string | null;
  usage: TokenUsage;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};
