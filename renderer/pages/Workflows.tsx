// The Agents area's Workflows and Swarms sub-pages: create (a form of step rows, each step's agent picked from the
// agents), run with an input, runs with per-step status and output; swarms (coordinator and members picked from the
// agents), their tasks, rounds, contributions, votes, final answer and consensus. Labels in words, never the API's
// field names, and the server's refusals put in the form's words (workflow-text.ts).
import { type ReactNode, useEffect, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { ERROR_POLICIES, type SwarmTask, type WorkflowRun } from '../../shared/orchestrator.ts';
import { Checkbox, DangerButton, Select, Table } from '../components/controls.tsx';
import { type Outcome, useDraft, useOutcome, useTextPerRow } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import type { StepDraft } from '../store/workflows.ts';
import { swarmProblemsInWords, workflowProblemsInWords } from './workflow-text.ts';
import { Refused, StatusPill, Time } from './agents/parts.tsx';

const emptyStep = (): StepDraft => ({ name: '', agent: '', prompt: '', error_policy: 'fail', max_retries: '' });

/** Polls once a second while shown, and at once when an event of a workflow run or swarm task arrives. */
function useLiveWorkflows() {
  const store = useAppStore();
  const lastEvent = useApp((s) => {
    for (let i = s.events.length - 1; i >= 0; i--) {
      const e = s.events[i]! as { id: number; run_id?: string | null; swarm_task_id?: string | null };
      if (e.run_id || e.swarm_task_id) return e.id;
    }
    return 0;
  });
  useEffect(() => {
    void store.getState().refreshWorkflows();
    const t = setInterval(() => void store.getState().refreshWorkflows(), 1000);
    return () => clearInterval(t);
  }, [store]);
  useEffect(() => {
    if (lastEvent) void store.getState().refreshWorkflows();
  }, [lastEvent, store]);
}

/** What happens when a step fails, in words (the API's error_policy). */
const POLICY_WORDS: Record<(typeof ERROR_POLICIES)[number], string> = {
  fail: 'stop the run',
  continue: 'go on without its output',
  retry: 'try it again',
};

/** A picker of the agents by name (the names workflows and swarms use). */
function AgentPicker({
  value,
  onChange,
  label,
  testId,
}: {
  value: string;
  onChange: (name: string) => void;
  label: string;
  testId: string;
}) {
  const agents = useApp((s) => s.agents);
  const names = agents.map((a) => a.name);
  return (
    <Select
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      blank={names.length ? 'agent…' : 'no agents yet: create one first'}
      options={value && !names.includes(value) ? [...names, value] : names}
      data-testid={testId}
    />
  );
}

export function WorkflowsSection() {
  useLiveWorkflows();
  const store = useAppStore();
  const { workflows, runs } = useApp(useShallow((s) => ({ workflows: s.workflows, runs: s.runs })));
  const [name, setName] = useState('');
  const [steps, setSteps] = useState<StepDraft[]>([emptyStep()]);
  const { problems, run } = useOutcome();
  const inputs = useTextPerRow();
  const [runProblems, setRunProblems] = useState<Record<string, Outcome>>({});

  /** Binds an input of step row `i` to its field `key`. */
  const stepText = (i: number, key: keyof StepDraft) => ({
    value: steps[i]![key],
    onChange: (e: { target: { value: string } }) =>
      setSteps(steps.map((s, j) => (j === i ? { ...s, [key]: e.target.value } : s))),
  });
  const create = () =>
    run(store.getState().createWorkflow({ name, steps }), () => {
      setName('');
      setSteps([emptyStep()]);
    });

  return (
    <div data-testid="workflows">
      <div className="card" data-testid="workflow-form">
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} data-testid="workflow-name" />
        </label>
        <p className="hint">
          Each step runs an agent with its prompt, in order. A prompt may use the run&apos;s input (
          <code>{'{{input.topic}}'}</code>) and an earlier step&apos;s answer (
          <code>{'{{steps.research.output}}'}</code>).
        </p>
        <div className="table-wrap">
          <Table
            head={[
              'Step name',
              'Agent',
              'Prompt',
              'If it fails',
              'Tries again (at most)',
              <span className="sr-only">actions</span>,
            ]}
          >
            {steps.map((step, i) => (
              <tr key={i} data-testid="step-row">
                <td>
                  <input size={12} aria-label={`Step ${i + 1} name`} {...stepText(i, 'name')} data-testid="step-name" />
                </td>
                <td>
                  <AgentPicker
                    label={`Step ${i + 1} agent`}
                    value={step.agent}
                    onChange={(agent) => setSteps(steps.map((s2, j) => (j === i ? { ...s2, agent } : s2)))}
                    testId="step-agent"
                  />
                </td>
                <td>
                  <textarea
                    aria-label={`Step ${i + 1} prompt`}
                    rows={2}
                    cols={30}
                    {...stepText(i, 'prompt')}
                    data-testid="step-prompt"
                  />
                </td>
                <td>
                  <select
                    aria-label={`Step ${i + 1}: if it fails`}
                    {...stepText(i, 'error_policy')}
                    data-testid="step-policy"
                  >
                    {ERROR_POLICIES.map((p) => (
                      <option key={p} value={p}>
                        {POLICY_WORDS[p]}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    aria-label={`Step ${i + 1}: how many times it tries again at most`}
                    size={4}
                    placeholder="2"
                    inputMode="numeric"
                    disabled={step.error_policy !== 'retry'}
                    {...stepText(i, 'max_retries')}
                    data-testid="step-retries"
                  />
                </td>
                <td>
                  <DangerButton
                    aria-label={`Remove step ${i + 1}`}
                    disabled={steps.length === 1}
                    onClick={() => setSteps(steps.filter((_, j) => j !== i))}
                  >
                    Remove
                  </DangerButton>
                </td>
              </tr>
            ))}
          </Table>
        </div>
        <div className="row">
          <button onClick={() => setSteps([...steps, emptyStep()])} data-testid="add-step">
            Add step
          </button>
          <button onClick={() => void create()} data-testid="workflow-create">
            Create workflow
          </button>
        </div>
        <Problems messages={problems && workflowProblemsInWords(problems, steps)} />
      </div>
      {workflows.map((w) => (
        <NamedCard
          key={w.id}
          testId={`workflow-${w.name}`}
          name={w.name}
          summary={w.steps.map((s) => `${s.name} (${s.agent})`).join(' → ')}
        >
          <div className="row">
            <textarea
              rows={1}
              cols={50}
              aria-label={`Input of ${w.name} (JSON)`}
              placeholder='input JSON, e.g. {"topic": "bees"}'
              {...inputs.text(w.name)}
              data-testid="workflow-input"
            />
            <button
              onClick={() =>
                void store
                  .getState()
                  .runWorkflow(w.name, inputs.get(w.name))
                  .then((p) => setRunProblems({ ...runProblems, [w.name]: p }))
              }
              data-testid="workflow-run"
            >
              Run
            </button>
          </div>
          <Refused what={`"${w.name}" did not run.`} messages={runProblems[w.name] ?? null} />
          {(runs[w.name] ?? []).map((r) => (
            <RunView key={r.run_id} run={r} />
          ))}
        </NamedCard>
      ))}
    </div>
  );
}

/** A workflow or a swarm: its name, a summary, then what it offers (a text to send, what came of it). */
function NamedCard({
  testId,
  name,
  summary,
  children,
}: {
  testId: string;
  name: string;
  summary: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="card" data-testid={testId}>
      <strong>{name}</strong> <span className="small">{summary}</span>
      {children}
    </div>
  );
}

/** The head line of a workflow run or a swarm task: its id, status, what else it says, and its error. */
function ProgressHead({
  id,
  status,
  error,
  children,
}: {
  id: string;
  status: string;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <div className="row">
      <span className="mono">{id}</span> <StatusPill status={status} />
      {children}
      {error && <span className="error">{error}</span>}
    </div>
  );
}

function RunView({ run }: { run: WorkflowRun }) {
  return (
    <div data-testid="run" data-status={run.status}>
      <ProgressHead id={run.run_id} status={run.status} error={run.error}>
        <span className="small">input {JSON.stringify(run.input)}</span>
        <span className="small">
          started <Time iso={run.created_at} />
        </span>
      </ProgressHead>
      <div className="table-wrap">
        <Table head={['Step', 'Agent', 'Status', 'Attempts', 'Output', 'Errors']}>
          {run.steps.map((s) => (
            <tr key={s.name} data-testid="run-step" data-status={s.status}>
              <td>{s.task_ids.length ? <a href={`#/agents/tasks/${s.task_ids.at(-1)}`}>{s.name}</a> : s.name}</td>
              <td>{s.agent}</td>
              <td>
                <StatusPill status={s.status} />
              </td>
              <td className="small">{s.attempts || ''}</td>
              <td data-testid="run-step-output">{s.output ?? ''}</td>
              <td className="small">{s.errors.join('; ')}</td>
            </tr>
          ))}
        </Table>
      </div>
    </div>
  );
}

export function SwarmsSection() {
  useLiveWorkflows();
  const store = useAppStore();
  const { swarms, swarmTasks } = useApp(useShallow((s) => ({ swarms: s.swarms, swarmTasks: s.swarmTasks })));
  const { draft, reset, text, flag, setDraft } = useDraft({
    name: '',
    coordinator: '',
    max_rounds: '3',
    consensus_required: false,
  });
  const [members, setMembers] = useState<string[]>([]);
  const agentNames = useApp(useShallow((s) => s.agents.map((a) => a.name)));
  const { problems, run } = useOutcome();
  const messages = useTextPerRow();
  const [sendProblems, setSendProblems] = useState<Record<string, Outcome>>({});

  const create = () =>
    run(
      store.getState().createSwarm({
        name: draft.name,
        coordinator: draft.coordinator,
        agents: members,
        max_rounds: Number(draft.max_rounds),
        consensus_required: draft.consensus_required,
      }),
      () => {
        reset();
        setMembers([]);
      },
    );

  return (
    <div data-testid="swarms">
      <div className="card" data-testid="swarm-form">
        <div className="row">
          <label>
            Name <input {...text('name')} data-testid="swarm-name" />
          </label>
          <label>
            Coordinator
            <AgentPicker
              label="Coordinator"
              value={draft.coordinator}
              onChange={(coordinator) => setDraft((d) => ({ ...d, coordinator }))}
              testId="swarm-coordinator"
            />
          </label>
          <label>
            Rounds at most <input size={3} inputMode="numeric" {...text('max_rounds')} data-testid="swarm-rounds" />
          </label>
        </div>
        <fieldset className="agent-tools" data-testid="swarm-agents">
          <legend>Members (the agents the coordinator hands work to)</legend>
          {agentNames.length === 0 && <span className="hint">No agents yet: create them on the Agents page.</span>}
          {agentNames
            .filter((a) => a !== draft.coordinator)
            .map((a) => (
              <Checkbox
                key={a}
                label={a}
                checked={members.includes(a)}
                onChange={(e) => setMembers(e.target.checked ? [...members, a] : members.filter((m) => m !== a))}
                data-testid={`swarm-member-${a}`}
              />
            ))}
        </fieldset>
        <Checkbox
          {...flag('consensus_required')}
          label="The members vote on the coordinator's answer, and it stands only when they agree (consensus)"
          data-testid="swarm-consensus"
          row
        />
        <button onClick={() => void create()} data-testid="swarm-create">
          Create swarm
        </button>
      </div>
      <Problems messages={problems && swarmProblemsInWords(problems)} />
      {swarms.map((s) => (
        <NamedCard
          key={s.id}
          testId={`swarm-${s.name}`}
          name={s.name}
          summary={
            <>
              coordinator {s.coordinator}; members {s.agents.join(', ')}; {s.config.max_rounds} rounds at most
              {s.config.consensus_required ? ', consensus required' : ''}
            </>
          }
        >
          <div className="row">
            <input
              aria-label={`Task for ${s.name}`}
              placeholder="task"
              size={50}
              {...messages.text(s.name)}
              data-testid="swarm-message"
            />
            <button
              onClick={() =>
                void store
                  .getState()
                  .sendSwarmTask(s.name, messages.get(s.name))
                  .then((p) => setSendProblems({ ...sendProblems, [s.name]: p }))
              }
              data-testid="swarm-send"
            >
              Send task
            </button>
          </div>
          <Refused what={`The task was not sent to "${s.name}".`} messages={sendProblems[s.name] ?? null} />
          {(swarmTasks[s.name] ?? []).map((t) => (
            <SwarmTaskView key={t.id} task={t} />
          ))}
        </NamedCard>
      ))}
    </div>
  );
}

function SwarmTaskView({ task }: { task: SwarmTask }) {
  return (
    <div data-testid="swarm-task" data-status={task.status}>
      <ProgressHead id={task.id} status={task.status} error={task.error}>
        {' '}
        {task.message}
        <span className="small">
          started <Time iso={task.created_at} />
        </span>
      </ProgressHead>
      {task.rounds.map((r) => (
        <div key={r.round} className="small">
          <strong>Round {r.round}</strong>
          <ul>
            {r.contributions.map((c) => (
              <li key={c.task_id}>
                <a href={`#/agents/tasks/${c.task_id}`}>{c.agent}</a> ({c.status}): <em>{c.instruction}</em> →{' '}
                {c.output ?? ''}
              </li>
            ))}
            {r.proposal !== null && <li>The coordinator&apos;s answer: {r.proposal}</li>}
            {r.votes.map((v) => (
              <li key={v.task_id}>
                {v.agent} votes {v.approve ? 'for it' : 'against it'}
                {v.reasons ? `: ${v.reasons}` : ''}
              </li>
            ))}
          </ul>
        </div>
      ))}
      {task.final_answer !== null && (
        <p data-testid="swarm-final">
          <strong>Final answer</strong>
          {task.consensus !== null && ` (consensus: ${task.consensus ? 'yes' : 'no'})`}: {task.final_answer}
        </p>
      )}
    </div>
  );
}
