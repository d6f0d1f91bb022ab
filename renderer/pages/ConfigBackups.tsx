// Settings' Backups list: the configs Switchboard kept before replacing config.json, each with Restore (asked first),
// and Compare: what changed, field by field (never a key), between two of them or one and the config in force.
import { useEffect, useState } from 'react';
import type { ConfigBackupInfo, ConfigBackupList, ConfigBackupReason } from '../../shared/admin.ts';
import { DangerButton, ErrorLine, Table } from '../components/controls.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useApp, useAppStore } from '../store/react.ts';
import { configDiff, type FieldChange } from './config-diff.ts';

const WHY: Record<ConfigBackupReason, string> = {
  save: 'replaced by a save',
  restore: 'replaced by a restore',
  edit: 'replaced by an edit of the file',
  upgrade: 'rewritten at start (old limit defaults)',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a backup holds, in words: its providers by name and its rules (never a key). */
export function backupSummary(b: ConfigBackupInfo): string {
  if (b.problem) return `not read: it ${b.problem}`;
  if (!b.valid) return 'not a valid config';
  const names = b.provider_names.length ? ` (${b.provider_names.join(', ')})` : '';
  return `${plural(b.providers, 'provider')}${names}, ${plural(b.rules, 'rule')}`;
}

export function ConfigBackups() {
  const api = useApi();
  const store = useAppStore();
  const doc = useApp((s) => s.configDoc);
  const [list, setList] = useState<ConfigBackupList | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Read again whenever the config changes (a save keeps a backup).
  useEffect(() => {
    let live = true;
    void api.listConfigBackups().then((r) => {
      if (!live) return;
      if (r.ok) setList(r.data);
      else setError(failureText(r.failure).join(' '));
    });
    return () => {
      live = false;
    };
  }, [api, doc]);

  const restore = async (b: ConfigBackupInfo) => {
    setDone(null);
    const r = await api.restoreConfigBackup({ id: b.id });
    if (!r.ok) return setError(failureText(r.failure).join(' '));
    setError(null);
    setDone(
      `Restored backup ${b.id}.` +
        (r.data.backup
          ? ` The config it replaced is kept as backup ${r.data.backup.id}.`
          : ' It was already in force.'),
    );
    await store.getState().loadConfig();
    void store.getState().refreshStatus();
  };

  return (
    <div data-testid="config-backups">
      <h3>Backups</h3>
      <p className="hint">
        Before config.json is replaced (a save, a restore, an edit of the file), Switchboard keeps the config it
        replaces{list ? ` in ${list.dir}; kept: ${list.policy ?? `the newest ${list.keep}`}` : ''}. They hold your keys,
        so the files are owner-only. Restoring one keeps the current config as a backup first. From a terminal:{' '}
        <code className="mono">switchboard config backups</code>,{' '}
        <code className="mono">switchboard config restore &lt;id|latest&gt;</code>.
      </p>
      <ErrorLine message={error} alert testId="backup-error" />
      {done && (
        <p className="ok" data-testid="backup-restored">
          {done}
        </p>
      )}
      {list && list.data.length === 0 && <p data-testid="no-backups">No backups yet: each save keeps one.</p>}
      {list && list.data.length > 0 && <CompareBackups backups={list.data} />}
      {list && list.data.length > 0 && (
        <Table head={['kept at', 'why', 'holds', 'id', <span className="sr-only">actions</span>]}>
          {list.data.map((b) => (
            <tr key={b.id} data-testid="config-backup">
              <td>{new Date(b.saved_at).toLocaleString()}</td>
              <td>{WHY[b.reason]}</td>
              <td>{backupSummary(b)}</td>
              <td className="mono">{b.id}</td>
              <td>
                <DangerButton
                  disabled={!b.valid}
                  title={b.valid ? undefined : 'This backup is not a valid config and cannot be restored.'}
                  confirm={
                    `Restore the config kept at ${new Date(b.saved_at).toLocaleString()} ` +
                    `(${backupSummary(b)})? The current config is kept as a backup first.`
                  }
                  onClick={() => void restore(b)}
                  data-testid={`restore-${b.id}`}
                >
                  Restore
                </DangerButton>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}

/** What is being compared: a backup, or the config in force. */
const CURRENT = 'current';

/** Compare: two versions of config.json (a backup, or the config in force) and what changed from one to the other. */
function CompareBackups({ backups }: { backups: ConfigBackupInfo[] }) {
  const api = useApi();
  const doc = useApp((s) => s.configDoc);
  const [from, setFrom] = useState(backups[0]!.id);
  const [to, setTo] = useState(CURRENT);
  const [changes, setChanges] = useState<FieldChange[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const label = (id: string) => {
    if (id === CURRENT) return 'the config in force now';
    const b = backups.find((x) => x.id === id);
    return b ? `${new Date(b.saved_at).toLocaleString()} (${WHY[b.reason]})` : id;
  };
  const configOf = async (id: string): Promise<unknown> => {
    if (id === CURRENT) return doc?.config ?? {};
    const r = await api.getConfigBackup({ id });
    if (!r.ok) throw new Error(failureText(r.failure).join(' '));
    return r.data.config;
  };
  const compare = async () => {
    try {
      const [a, b] = await Promise.all([configOf(from), configOf(to)]);
      setChanges(configDiff(a, b));
      setError(null);
    } catch (err) {
      setChanges(null);
      setError((err as Error).message);
    }
  };
  const options = [...backups.map((b) => b.id), CURRENT];
  const pick = (value: string, set: (v: string) => void, name: string, testId: string) => (
    <select aria-label={name} value={value} onChange={(e) => set(e.target.value)} data-testid={testId}>
      {options.map((id) => (
        <option key={id} value={id}>
          {label(id)}
        </option>
      ))}
    </select>
  );
  return (
    <div className="card" data-testid="backup-compare">
      <div className="row">
        <span>Compare</span>
        {pick(from, setFrom, 'Compare from', 'compare-from')}
        <span>with</span>
        {pick(to, setTo, 'Compare with', 'compare-to')}
        <button onClick={() => void compare()} data-testid="compare-run">
          Show what changed
        </button>
      </div>
      <ErrorLine message={error} />
      {changes && changes.length === 0 && <p data-testid="compare-same">They hold the same settings.</p>}
      {changes && changes.length > 0 && (
        <div className="table-wrap">
          <Table head={['field', 'in the first', 'in the second']}>
            {changes.map((c) => (
              <tr key={c.field} data-testid="compare-change">
                <td className="mono">{c.field}</td>
                <td className="mono wrap-anywhere">{c.before}</td>
                <td className="mono wrap-anywhere">{c.after}</td>
              </tr>
            ))}
          </Table>
          <p className="hint">Keys are never shown: a changed key says only that it changed.</p>
        </div>
      )}
    </div>
  );
}
