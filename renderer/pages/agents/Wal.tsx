// Agents › Advanced: what the write-ahead log is (explained first: most people never need this page), its status in words (what a restart replays, what waits to be durable, damage,
// the group-commit buffer, the last compaction in local time) and Compact, its outcome said.
import { type ReactNode, useState } from 'react';
import { Table } from '../../components/controls.tsx';
import { useApp, useAppStore } from '../../store/react.ts';
import { Refused, Time } from './parts.tsx';

type WalStatus = {
  total_entries?: number;
  pending_entries?: number;
  corrupted_entries?: number;
  buffer_usage?: number;
  last_compaction?: string | null;
};

export function WalPage() {
  const store = useAppStore();
  const wal = useApp((s) => s.wal) as WalStatus | null;
  const [refused, setRefused] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);

  const compact = async () => {
    setBusy(true);
    const p = await store.getState().compactWal();
    setBusy(false);
    setRefused(p);
    if (!p) store.getState().announce('The write-ahead log was compacted.');
  };

  const rows: [string, ReactNode, string][] = wal
    ? [
        ['Records since the last snapshot', wal.total_entries ?? '—', 'what a restart replays'],
        ['Waiting to be durable', wal.pending_entries ?? '—', 'accepted, not yet on disk'],
        [
          'Damaged records',
          wal.corrupted_entries ?? '—',
          wal.corrupted_entries ? 'kept aside as *.damaged-* files in the data folder' : 'none',
        ],
        [
          'Group-commit buffer',
          wal.buffer_usage === undefined ? '—' : `${(wal.buffer_usage * 100).toFixed(1)} %`,
          'how full the batch being written is',
        ],
        ['Last compaction', <Time iso={wal.last_compaction ?? null} />, 'when the last snapshot was written'],
      ]
    : [];
  return (
    <div data-testid="wal-page">
      <p className="hint" data-testid="wal-explained">
        Agents, their tasks, workflows, swarms and runs are kept in a <strong>write-ahead log</strong> in the data
        folder beside config.json: every change is written to the disk before Switchboard answers it, so a crash or a
        power cut loses nothing it had answered, and a restart rebuilds everything from the last snapshot and the
        changes after it. Nothing here needs looking after in normal use; Compact happens on its own once the log passes
        64 MB.
      </p>
      {wal ? (
        <Table head={['Measure', 'Now', 'What it means']}>
          {rows.map(([k, v, note]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td data-testid="wal-value">{v}</td>
              <td className="small">{note}</td>
            </tr>
          ))}
        </Table>
      ) : (
        <p className="hint">Reading the log's status…</p>
      )}
      <details>
        <summary>As the agent API answers it (GET /api/v1/wal/status)</summary>
        <pre className="small" data-testid="wal-status">
          {wal ? JSON.stringify(wal, null, 2) : '—'}
        </pre>
      </details>
      <div className="row">
        <button onClick={() => void compact()} disabled={busy} data-testid="wal-compact">
          {busy ? 'Compacting…' : 'Compact now'}
        </button>
        <span className="hint">Writes a snapshot of the agents' state and drops the log segments it covers.</span>
      </div>
      <Refused what="The log was not compacted." messages={refused} />
    </div>
  );
}
