// The Agents area's Workflows and Swarms sub-pages: create (a form of step rows), run with an input, runs with
// per-step status and output; swarms, their tasks, rounds, contributions, votes, final answer and consensus.
import { type ReactNode, useEffect, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { ERROR_POLICIES, type SwarmTask, type WorkflowRun } from '../../shared/orchestrator.ts';
import { Checkbox, DangerButton, Select, Table } from '../components/controls.tsx';
import { type Outcome, useDraft, useOutcome, useTextPerRow } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import type { StepDraft } from '../store/workflows.ts';
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

/** The agents' names, offered by the inputs that name an agent (`list="agent-names"`). */
function AgentNames() {
  const agents = useApp((s) => s.agents);
  return (
    <datalist id="agent-names">
      {agents.map((a) => (
        <option key={a.id} value={a.name} />
      ))}
    </datalist>
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
      <AgentNames />
      <div className="card" data-testid="workflow-form">
        <label>
          name <input value={name} onChange={(e) => setName(e.target.value)} data-testid="workflow-name" />
        </label>
        <div className="table-wrap">
          <Table
            head={[
              'step',
              'agent',
              <>
                prompt ({'{{input.key}}'}, {'{{steps.name.output}}'})
              </>,
              'error_policy',
              'max_retries',
              '',
            ]}
          >
            {steps.map((_, i) => (
              <tr key={i} data-testid="step-row">
                <td>
                  <input size={12} aria-label={`Step ${i + 1} name`} {...stepText(i, 'name')} data-testid="step-name" />
                </td>
                <td>
                  <input
                    size={12}
                    aria-label={`Step ${i + 1} agent`}
                    list="agent-names"
                    {...stepText(i, 'agent')}
                    data-testid="step-agent"
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
                  <Select
                    aria-label={`Step ${i + 1} error policy`}
                    {...stepText(i, 'error_policy')}
                    options={ERROR_POLICIES}
                    data-testid="step-policy"
                  />
                </td>
                <td>
                  <input
                    aria-label={`Step ${i + 1} max retries`}
                    size={4}
                    placeholder="2"
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
        <Problems messages={problems} />
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
  const { draft, reset, text, flag } = useDraft({
    name: '',
    coordinator: '',
    agents: '',
    max_rounds: '3',
    consensus_required: false,
  });
  const { problems, run } = useOutcome();
  const messages = useTextPerRow();
  const [sendProblems, setSendProblems] = useState<Record<string, Outcome>>({});

  const create = () =>
    run(
      store.getState().createSwarm({
        name: draft.name,
        coordinator: draft.coordinator,
        agents: draft.agents
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean),
        max_rounds: Number(draft.max_rounds),
        consensus_required: draft.consensus_required,
      }),
      reset,
    );

  return (
    <div data-testid="swarms">
      <AgentNames />
      <div className="row card">
        <label>
          Name <input {...text('name')} data-testid="swarm-name" />
        </label>
        <label>
          Coordinator <input list="agent-names" {...text('coordinator')} data-testid="swarm-coordinator" />
        </label>
        <label>
          Members <input placeholder="comma-separated agent names" {...text('agents')} data-testid="swarm-agents" />
        </label>
        <label>
          max_rounds <input size={3} {...text('max_rounds')} />
        </label>
        <Checkbox {...flag('consensus_required')} label="consensus_required" />
        <button onClick={() => void create()} data-testid="swarm-create">
          Create swarm
        </button>
      </div>
      <Problems messages={problems} />
      {swarms.map((s) => (
        <NamedCard
          key={s.id}
          testId={`swarm-${s.name}`}
          name={s.name}
          summary={
            <>
              coordinator {s.coordinator}; members {s.agents.join(', ')}; up to {s.config.max_rounds} rounds
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
            {r.proposal !== null && <li>proposal: {r.proposal}</li>}
            {r.votes.map((v) => (
              <li key={v.task_id}>
                vote {v.agent}: {v.approve ? 'approve' : 'reject'} {v.reasons}
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
