// Tool calls waiting for your approval (docs/agents.md, "Approval"): each with its agent, tool and arguments, and Approve,
// Edit (approve with other arguments) and Deny (with a reason). Shown above the Agents area's sub-pages while any
// call waits; read every 2 s and at once when an approval event arrives.
import { useCallback, useEffect, useState } from 'react';
import type { Approval, AgentEvent } from '../../../shared/orchestrator.ts';
import { ErrorLine } from '../../components/controls.tsx';
import { failureText } from '../../store/config.ts';
import { useApi } from '../../store/react.ts';
import { Time, useAgentNames } from './parts.tsx';

const keyOf = (a: Approval) => `${a.task_id}/${a.call_id}`;

function ApprovalCard({ a, onDone }: { a: Approval; onDone: () => void }) {
  const api = useApi();
  const agentName = useAgentNames();
  const [editing, setEditing] = useState(false);
  const [args, setArgs] = useState(() => JSON.stringify(a.arguments, null, 2));
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = keyOf(a).replace(/[^A-Za-z0-9_-]/g, '-');

  const send = async (decision: 'approve' | 'deny') => {
    const body: Record<string, unknown> = { decision };
    if (decision === 'approve' && editing) {
      try {
        const parsed = JSON.parse(args) as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        body.arguments = parsed;
      } catch (err) {
        return setError(`The arguments must be a JSON object (${(err as Error).message}).`);
      }
    }
    if (reason.trim()) body.reason = reason.trim();
    setBusy(true);
    const path = `/tasks/${encodeURIComponent(a.task_id)}/approvals/${encodeURIComponent(a.call_id)}`;
    const r = await api.agentApi({ method: 'POST', path, body });
    setBusy(false);
    if (!r.ok) return setError(failureText(r.failure).join(' '));
    setError(null);
    onDone();
  };

  return (
    <li className="approval" data-testid="approval" aria-labelledby={`approval-${id}`}>
      <p id={`approval-${id}`}>
        <strong>{agentName(a.agent_id)}</strong> asks to run <code className="mono">{a.tool}</code> (task{' '}
        <a href={`#/agents/tasks/${a.task_id}`} className="mono">
          {a.task_id}
        </a>
        ). Denied at <Time iso={a.expires_at} /> if no one decides.
      </p>
      <label>
        Arguments{editing ? ' (edit, then Approve)' : ''}
        <textarea
          className="mono"
          rows={Math.min(12, args.split('\n').length + 1)}
          value={args}
          readOnly={!editing}
          onChange={(e) => setArgs(e.target.value)}
          data-testid="approval-arguments"
        />
      </label>
      <label>
        Reason (optional){' '}
        <input value={reason} onChange={(e) => setReason(e.target.value)} data-testid="approval-reason" />
      </label>
      <div className="row">
        <button disabled={busy} onClick={() => void send('approve')} data-testid="approval-approve">
          {editing ? 'Approve with these arguments' : 'Approve'}
        </button>
        {!editing && (
          <button disabled={busy} onClick={() => setEditing(true)} data-testid="approval-edit">
            Edit
          </button>
        )}
        <button className="danger" disabled={busy} onClick={() => void send('deny')} data-testid="approval-deny">
          Deny
        </button>
      </div>
      <ErrorLine message={error} alert testId="approval-error" />
    </li>
  );
}

export function PendingApprovals() {
  const api = useApi();
  const [pending, setPending] = useState<Approval[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const r = await api.agentApi({ method: 'GET', path: '/approvals?status=pending' });
    if (!r.ok) return setError(failureText(r.failure).join(' '));
    setError(null);
    setPending((r.data as { data: Approval[] }).data);
  }, [api]);

  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 2000);
    const off = api.subscribe('agentEvent', (e: AgentEvent) => {
      if (e.type === 'approval_required' || e.type === 'approval_decided') void load();
    });
    return () => {
      clearInterval(t);
      off();
    };
  }, [api, load]);

  if (pending.length === 0 && !error) return null;
  return (
    <section className="approvals" data-testid="pending-approvals" aria-labelledby="approvals-heading">
      <h3 id="approvals-heading">Waiting for your approval ({pending.length})</h3>
      <ErrorLine message={error} testId="approvals-error" />
      <ul>
        {pending.map((a) => (
          <ApprovalCard key={keyOf(a)} a={a} onDone={() => void load()} />
        ))}
      </ul>
    </section>
  );
}
