// The Agents page's workflows and swarms: create (a form of step rows), run with an input, runs with per-step
// status and output; swarms, their tasks, rounds, contributions, votes, final answer and consensus.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { ERROR_POLICIES, type SwarmTask, type WorkflowRun } from '../../shared/orchestrator.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import type { StepDraft } from '../store/workflows.ts';

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

export function WorkflowsSection() {
  useLiveWorkflows();
  const store = useAppStore();
  const { workflows, runs, agents } = useApp(
    useShallow((s) => ({ workflows: s.workflows, runs: s.runs, agents: s.agents })),
  );
  const [name, setName] = useState('');
  const [steps, setSteps] = useState<StepDraft[]>([emptyStep()]);
  const [problems, setProblems] = useState<string[] | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [runProblems, setRunProblems] = useState<Record<string, string[] | null>>({});

  const setStep = (i: number, patch: Partial<StepDraft>) =>
    setSteps(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const create = async () => {
    const p = await store.getState().createWorkflow({ name, steps });
    setProblems(p);
    if (!p) {
      setName('');
      setSteps([emptyStep()]);
    }
  };

  return (
    <div data-testid="workflows">
      <h3>Workflows</h3>
      <datalist id="agent-names">
        {agents.map((a) => (
          <option key={a.id} value={a.name} />
        ))}
      </datalist>
      <div className="card" data-testid="workflow-form">
        <label>
          name <input value={name} onChange={(e) => setName(e.target.value)} data-testid="workflow-name" />
        </label>
        <table>
          <thead>
            <tr>
              <th>step</th>
              <th>agent</th>
              <th>
                prompt ({'{{input.key}}'}, {'{{steps.name.output}}'})
              </th>
              <th>error_policy</th>
              <th>max_retries</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {steps.map((s, i) => (
              <tr key={i} data-testid="step-row">
                <td>
                  <input
                    value={s.name}
                    onChange={(e) => setStep(i, { name: e.target.value })}
                    data-testid="step-name"
                  />
                </td>
                <td>
                  <input
                    list="agent-names"
                    value={s.agent}
                    onChange={(e) => setStep(i, { agent: e.target.value })}
                    data-testid="step-agent"
                  />
                </td>
                <td>
                  <textarea
                    rows={2}
                    cols={40}
                    value={s.prompt}
                    onChange={(e) => setStep(i, { prompt: e.target.value })}
                    data-testid="step-prompt"
                  />
                </td>
                <td>
                  <select
                    value={s.error_policy}
                    onChange={(e) => setStep(i, { error_policy: e.target.value })}
                    data-testid="step-policy"
                  >
                    {ERROR_POLICIES.map((p) => (
                      <option key={p}>{p}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    size={4}
                    placeholder="2"
                    value={s.max_retries}
                    onChange={(e) => setStep(i, { max_retries: e.target.value })}
                    data-testid="step-retries"
                  />
                </td>
                <td>
                  <button
                    className="danger"
                    disabled={steps.length === 1}
                    onClick={() => setSteps(steps.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
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
        <div key={w.id} className="card" data-testid={`workflow-${w.name}`}>
          <strong>{w.name}</strong>{' '}
          <span className="small">{w.steps.map((s) => `${s.name} (${s.agent})`).join(' → ')}</span>
          <div className="row">
            <textarea
              rows={1}
              cols={50}
              placeholder='input JSON, e.g. {"topic": "bees"}'
              value={inputs[w.name] ?? ''}
              onChange={(e) => setInputs({ ...inputs, [w.name]: e.target.value })}
              data-testid="workflow-input"
            />
            <button
              onClick={() =>
                void store
                  .getState()
                  .runWorkflow(w.name, inputs[w.name] ?? '')
                  .then((p) => setRunProblems({ ...runProblems, [w.name]: p }))
              }
              data-testid="workflow-run"
            >
              Run
            </button>
          </div>
          <Problems messages={runProblems[w.name] ?? null} />
          {(runs[w.name] ?? []).map((r) => (
            <RunView key={r.run_id} run={r} />
          ))}
        </div>
      ))}
    </div>
  );
}

function RunView({ run }: { run: WorkflowRun }) {
  return (
    <div data-testid="run" data-status={run.status}>
      <div className="row">
        <span className="mono">{run.run_id}</span>{' '}
        <span className={`pill ${run.status === 'completed' ? 'ok' : run.status}`}>{run.status}</span>
        <span className="small">input {JSON.stringify(run.input)}</span>
        {run.error && <span className="error">{run.error}</span>}
      </div>
      <table>
        <tbody>
          {run.steps.map((s) => (
            <tr key={s.name} data-testid="run-step" data-status={s.status}>
              <td>{s.name}</td>
              <td>{s.agent}</td>
              <td>
                <span className={`pill ${s.status === 'completed' ? 'ok' : s.status}`}>{s.status}</span>
              </td>
              <td className="small">{s.attempts > 1 ? `${s.attempts} attempts` : ''}</td>
              <td data-testid="run-step-output">{s.output ?? ''}</td>
              <td className="small">{s.errors.join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SwarmsSection() {
  const store = useAppStore();
  const { swarms, swarmTasks } = useApp(useShallow((s) => ({ swarms: s.swarms, swarmTasks: s.swarmTasks })));
  const [draft, setDraft] = useState({
    name: '',
    coordinator: '',
    agents: '',
    max_rounds: '3',
    consensus_required: false,
  });
  const [problems, setProblems] = useState<string[] | null>(null);
  const [messages, setMessages] = useState<Record<string, string>>({});

  const create = async () => {
    const p = await store.getState().createSwarm({
      name: draft.name,
      coordinator: draft.coordinator,
      agents: draft.agents
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
      max_rounds: Number(draft.max_rounds),
      consensus_required: draft.consensus_required,
    });
    setProblems(p);
    if (!p) setDraft({ name: '', coordinator: '', agents: '', max_rounds: '3', consensus_required: false });
  };

  return (
    <div data-testid="swarms">
      <h3>Swarms</h3>
      <div className="row card">
        <input
          placeholder="name"
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          data-testid="swarm-name"
        />
        <input
          placeholder="coordinator"
          list="agent-names"
          value={draft.coordinator}
          onChange={(e) => setDraft({ ...draft, coordinator: e.target.value })}
          data-testid="swarm-coordinator"
        />
        <input
          placeholder="members, comma-separated"
          value={draft.agents}
          onChange={(e) => setDraft({ ...draft, agents: e.target.value })}
          data-testid="swarm-agents"
        />
        <label>
          max_rounds{' '}
          <input
            size={3}
            value={draft.max_rounds}
            onChange={(e) => setDraft({ ...draft, max_rounds: e.target.value })}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={draft.consensus_required}
            onChange={(e) => setDraft({ ...draft, consensus_required: e.target.checked })}
          />{' '}
          consensus_required
        </label>
        <button onClick={() => void create()} data-testid="swarm-create">
          Create swarm
        </button>
      </div>
      <Problems messages={problems} />
      {swarms.map((s) => (
        <div key={s.id} className="card" data-testid={`swarm-${s.name}`}>
          <strong>{s.name}</strong>{' '}
          <span className="small">
            coordinator {s.coordinator}; members {s.agents.join(', ')}; up to {s.config.max_rounds} rounds
            {s.config.consensus_required ? ', consensus required' : ''}
          </span>
          <div className="row">
            <input
              placeholder="task"
              size={50}
              value={messages[s.name] ?? ''}
              onChange={(e) => setMessages({ ...messages, [s.name]: e.target.value })}
              data-testid="swarm-message"
            />
            <button
              onClick={() =>
                void store
                  .getState()
                  .sendSwarmTask(s.name, messages[s.name] ?? '')
                  .then(setProblems)
              }
              data-testid="swarm-send"
            >
              Send task
            </button>
          </div>
          {(swarmTasks[s.name] ?? []).map((t) => (
            <SwarmTaskView key={t.id} task={t} />
          ))}
        </div>
      ))}
    </div>
  );
}

function SwarmTaskView({ task }: { task: SwarmTask }) {
  return (
    <div data-testid="swarm-task" data-status={task.status}>
      <div className="row">
        <span className="mono">{task.id}</span>{' '}
        <span className={`pill ${task.status === 'completed' ? 'ok' : task.status}`}>{task.status}</span> {task.message}
        {task.error && <span className="error">{task.error}</span>}
      </div>
      {task.rounds.map((r) => (
        <div key={r.round} className="small">
          <strong>Round {r.round}</strong>
          <ul>
            {r.contributions.map((c) => (
              <li key={c.task_id}>
                {c.agent} ({c.status}): <em>{c.instruction}</em> → {c.output ?? ''}
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
