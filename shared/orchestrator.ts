// The agent API's request bodies and records (spec/orchestrator.md): zod schemas shared by server and clients.
import { z } from 'zod';
import { ApprovalsSchema, type ApprovalPolicy } from './config.ts';

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

/**
 * A required text field whose errors say what it is for: zod's own wording for a missing field ("Invalid input:
 * expected string, received undefined") names neither the problem nor the fix.
 */
const requiredText = (what: string) =>
  z.string({
    error: (iss) =>
      iss.code === 'invalid_type'
        ? iss.input === undefined
          ? `is required: ${what}`
          : `must be text: ${what}`
        : undefined,
  });

export const CreateAgentSchema = z.strictObject({
  name: requiredText('the agent\'s name, unique among your agents (e.g. "researcher")')
    .trim()
    .min(1, 'must not be empty')
    .max(200),
  system_prompt: z.string().max(100_000).default(''),
  model: requiredText(
    'the model the agent\'s calls use, e.g. "gpt-4o-mini" (routed like any request: by a routing rule or to the default provider)',
  )
    .min(1, 'must not be empty')
    .max(200),
  tools: z.array(z.string().min(1)).max(50).default([]),
  /** Tool name or glob → auto | ask | deny, before config.json's orchestrator.approvals (docs/agents.md, "Approval"). */
  approvals: ApprovalsSchema.default({}),
  config: AgentConfigSchema.default({ max_tokens: 1024, temperature: 0.7, max_iterations: 10 }),
});
export type CreateAgent = z.infer<typeof CreateAgentSchema>;

/** PUT replaces the fields given; the rest stay. */
export const UpdateAgentSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  system_prompt: z.string().max(100_000).optional(),
  model: z.string().min(1).max(200).optional(),
  tools: z.array(z.string().min(1)).max(50).optional(),
  approvals: ApprovalsSchema.optional(),
  config: z
    .strictObject({
      max_tokens: z.number().int().min(1).max(200_000).optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_iterations: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
});
export type UpdateAgent = z.infer<typeof UpdateAgentSchema>;

/** OpenAI's `response_format` (structured output): the model's final answer must be JSON of this schema. */
export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-" (as OpenAI requires)'),
      description: z.string().max(10_000).optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().optional(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

/** The longest a task may run (`timeout_s`) and a wait may last (`?timeout_s=` with `wait=true`). */
export const TASK_TIMEOUT_MAX_S = 86_400;
export const WAIT_TIMEOUT = { default_s: 30, max_s: 300 } as const;

/**
 * The Idempotency-Key header of POST /agents/:id/run (as payment and LLM APIs take it): 1-255 printable ASCII
 * characters. A retry with the same key within IDEMPOTENCY_TTL_MS gets the first run's task back.
 */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 printable ASCII characters without spaces (e.g. a UUID)');
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const RunTaskSchema = z.strictObject({
  message: requiredText('what the agent is asked to do, as text').min(1, 'must not be empty').max(1_000_000),
  context: z
    .looseObject({
      output_format: z.string().max(100).optional(),
      max_length: z.number().int().min(1).optional(),
      response_format: ResponseFormatSchema.optional(),
    })
    .default({}),
  /** Continue this conversation (GET /threads); without it the run starts a new thread. */
  thread_id: z.string().min(1).max(100).optional(),
  /** The task's deadline, counted from when a worker starts it: past it the task stops (stop_reason `timeout`). */
  timeout_s: z.number().positive().max(TASK_TIMEOUT_MAX_S).optional(),
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
  /** Absent on agents made before approvals existed (the same as {}). */
  approvals?: Record<string, ApprovalPolicy>;
  config: { max_tokens: number; temperature: number; max_iterations: number };
  status: AgentStatus;
  tenant: string;
  created_at: string;
  updated_at: string;
  /**
   * When a client's run last started a new thread with it (the 15 s run window counts from here; a thread's next
   * turn does not move it).
   */
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
  /**
   * final_answer | max_iterations when completed; stopped | timeout | interrupted | error | invalid_output otherwise.
   */
  stop_reason: string | null;
  iterations: number;
  usage: TokenUsage;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Set on tasks a workflow step or a swarm started; absent on tasks a client started. */
  origin?: TaskOrigin;
  /** The conversation a client's task belongs to (every client run has one; workflow and swarm tasks have none). */
  thread_id?: string;
  /** The task's deadline in seconds, when the run gave one. */
  timeout_s?: number;
  /** The run's Idempotency-Key header, when it had one (a retry with the same key gets this task back). */
  idempotency_key?: string;
};

/** One message of a thread: what the model saw and said (hub form: OpenAI chat), and the task that added it. */
export type ThreadMessage = {
  role: 'user' | 'assistant' | 'tool';
  /** Text, or content parts (an image a tool returned is shown to the model as an image part). */
  content: string | Record<string, unknown>[] | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  task_id: string;
};

/** A conversation with one agent: its history is replayed into each run that names it. */
export type Thread = {
  id: string;
  agent_id: string;
  tenant: string;
  messages: ThreadMessage[];
  /** Completed runs whose messages are in the history. */
  turns: number;
  last_task_id: string | null;
  created_at: string;
  updated_at: string;
};

export const EVENT_TYPES = [
  'thinking',
  'tool_call',
  'tool_result',
  'output',
  'completed',
  'failed',
  'stopped',
  'approval_required',
  'approval_decided',
  // Redis mode: a task waiting for an approval goes on on another instance (the one running it was gone).
  'resumed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Events of a workflow run or a swarm task as a whole (a swarm's step is a round). */
export const RUN_EVENT_TYPES = [
  'run_started',
  'step_started',
  'step_completed',
  'step_failed',
  'run_completed',
  'run_failed',
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/**
 * One frame of GET /events about a workflow run (workflow_id, run_id) or a swarm task (swarm_id, swarm_task_id):
 * `step` (a workflow step's name) or `round` (a swarm round), the step's `task_id` and `agent_id` where there is one,
 * `status` on run_failed (failed, cancelled or stopped), `output` on step_completed and run_completed, `error`.
 */
export type RunEvent = {
  id: number;
  type: RunEventType;
  tenant: string;
  workflow_id: string | null;
  run_id?: string;
  swarm_id?: string;
  swarm_task_id?: string;
  time: string;
  step?: string;
  /** step_started: which attempt of the step (a workflow step under `retry` may have several). */
  attempt?: number;
  round?: number;
  task_id?: string;
  agent_id?: string;
  status?: string;
  output?: string | null;
  error?: string;
};

/** Whatever GET /events carries: a task's event or a run's. */
export type StreamEvent = AgentEvent | RunEvent;

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
  /** tool_call, tool_result and the approval events: the model's id of the call. */
  call_id?: string;
  /** approval_required: the arguments the call would run with; approval_decided: the ones it runs with. */
  arguments?: Record<string, unknown>;
  /** approval_required: when the call is denied if no one decides. */
  expires_at?: string;
  /** approval_decided: approved | denied | expired (no decision in time) | cancelled (the task stopped). */
  decision?: ApprovalStatus;
  reason?: string | null;
};

// ---- approvals (issue 16)

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** POST /tasks/:id/approvals/:call_id */
export const ApprovalDecisionSchema = z.strictObject({
  decision: z.enum(['approve', 'deny'], { message: 'must be "approve" or "deny"' }),
  /** With approve: the arguments to run the call with instead of the model's. */
  arguments: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().max(2000).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** A tool call waiting for (or given) a person's decision. */
export type Approval = {
  task_id: string;
  call_id: string;
  agent_id: string;
  tenant: string;
  /** `write_file`, or `<server>.<tool>` for an MCP tool. */
  tool: string;
  /** The model's arguments (`edited_arguments` holds the ones a person approved instead). */
  arguments: Record<string, unknown>;
  edited_arguments: Record<string, unknown> | null;
  status: ApprovalStatus;
  /** The person's reason, or what ended it (timed out, task stopped). */
  reason: string | null;
  requested_at: string;
  expires_at: string;
  decided_at: string | null;
  workflow_id: string | null;
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
  /** The agent's id, resolved when the workflow is saved (absent in workflows saved before names were unique). */
  agent_id?: string;
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
  /** Set by PUT /workflows/:name. */
  updated_at?: string;
};

/** A workflow run may end `cancelled` (POST .../runs/:id/cancel), a swarm task `stopped` (POST .../tasks/:id/stop). */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'stopped'] as const;
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
  /** Set by PUT /swarms/:name. */
  updated_at?: string;
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
