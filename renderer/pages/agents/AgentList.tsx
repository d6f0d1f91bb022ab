// Agents › Agents: create an agent (its model picked from the server's own list, GET /v1/models; its tools), the
// agents in a table, Run with a message (opening the run's view), Delete.
import { type ChangeEvent, useEffect, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { BUILTIN_TOOLS } from '../../../shared/orchestrator.ts';
import { Checkbox, DangerButton, Form, Table } from '../../components/controls.tsx';
import { useDraft, useOutcome, useTextPerRow } from '../../components/hooks.ts';
import { Problems } from '../../components/Problems.tsx';
import { useApp, useAppStore } from '../../store/react.ts';
import { Refused, StatusPill, Time } from './parts.tsx';

/** The model field: free text (any model the routing takes), with the server's models offered as you type. */
function ModelPicker(props: { value: string; onChange: (e: ChangeEvent<HTMLInputElement>) => void }) {
  const store = useAppStore();
  const { models, error } = useApp(useShallow((s) => ({ models: s.models, error: s.modelsError })));
  useEffect(() => void store.getState().refreshModels(), [store]);
  const hint =
    models === null
      ? error
        ? `The model list could not be read (${error}); type a model name.`
        : 'Reading the model list…'
      : models.length === 0
        ? 'No provider lists a model; type a model name.'
        : `${models.length} model${models.length === 1 ? '' : 's'} from Switchboard's own list (GET /v1/models); any name your routing takes works.`;
  return (
    <>
      <label>
        Model
        <input
          {...props}
          list="agent-model-options"
          required
          autoComplete="off"
          aria-describedby="agent-model-hint"
          data-testid="agent-model"
        />
      </label>
      <datalist id="agent-model-options" data-testid="agent-model-options">
        {(models ?? []).map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <span id="agent-model-hint" className="hint">
        {hint}
      </span>
    </>
  );
}

export function AgentList() {
  const store = useAppStore();
  const agents = useApp((s) => s.agents);
  const { draft, reset, text } = useDraft({ name: '', model: '', system_prompt: '' });
  const [tools, setTools] = useState<string[]>([]);
  const message = useTextPerRow();
  const { problems, run } = useOutcome();
  const [refused, setRefused] = useState<{ what: string; messages: string[] } | null>(null);
  const s = store.getState();

  const create = () =>
    void run(s.createAgent({ name: draft.name, model: draft.model, system_prompt: draft.system_prompt, tools }), () => {
      reset();
      setTools([]);
      s.announce(`Agent "${draft.name}" created.`);
    });
  const start = async (id: string, name: string) => {
    const r = await s.runAgent(id, message.get(id) || 'Hello');
    if (!r.ok) return setRefused({ what: `"${name}" did not start.`, messages: r.problems });
    setRefused(null);
    window.location.hash = `#/agents/tasks/${r.task_id}`;
  };

  return (
    <div data-testid="agents-list">
      <Form className="card agent-form" onSubmit={create} aria-label="New agent">
        <label>
          Name <input required {...text('name')} data-testid="agent-name" />
        </label>
        <ModelPicker {...text('model')} />
        <label className="wide">
          System prompt
          <textarea rows={2} {...text('system_prompt')} data-testid="agent-system-prompt" />
        </label>
        <fieldset className="agent-tools">
          <legend>Tools the agent may call</legend>
          {BUILTIN_TOOLS.map((t) => (
            <Checkbox
              key={t}
              label={<span className="mono">{t}</span>}
              checked={tools.includes(t)}
              onChange={(e) => setTools(e.target.checked ? [...tools, t] : tools.filter((x) => x !== t))}
              data-testid={`agent-tool-${t}`}
            />
          ))}
        </fieldset>
        <button type="submit" data-testid="agent-create">
          Create agent
        </button>
      </Form>
      <Problems messages={problems} />
      <Refused what={refused?.what ?? ''} messages={refused?.messages ?? null} />
      {agents.length === 0 ? (
        <p className="hint">No agents yet: create one above.</p>
      ) : (
        <div className="table-wrap">
          <Table head={['Name', 'Model', 'Tools', 'Status', 'Last run', 'Run with a message', '']}>
            {agents.map((a) => (
              <tr key={a.id} data-testid="agent-row">
                <td>{a.name}</td>
                <td className="mono">{a.model}</td>
                <td className="small mono">{a.tools.join(', ') || '—'}</td>
                <td>
                  <StatusPill status={a.status} />
                </td>
                <td className="small">
                  <Time iso={a.last_run_at} />
                </td>
                <td>
                  <Form className="row" onSubmit={() => void start(a.id, a.name)} aria-label={`Run ${a.name}`}>
                    <input
                      placeholder="Hello"
                      size={16}
                      aria-label={`Message for ${a.name}`}
                      {...message.text(a.id)}
                      data-testid="agent-message"
                    />
                    <button type="submit" data-testid="agent-run">
                      Run
                    </button>
                  </Form>
                </td>
                <td>
                  <DangerButton
                    confirm={`Delete the agent "${a.name}"?`}
                    onClick={() =>
                      void s
                        .deleteAgent(a.id)
                        .then((p) => setRefused(p && { what: `"${a.name}" was not deleted.`, messages: p }))
                    }
                    aria-label={`Delete ${a.name}`}
                  >
                    Delete
                  </DangerButton>
                </td>
              </tr>
            ))}
          </Table>
        </div>
      )}
    </div>
  );
}
