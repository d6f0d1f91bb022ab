// Settings' usage sections: budgets (add, edit, remove: one app or all, per day or month, the limit, the warning
// threshold, enforce), the notifications' switches, and the usage store's switch. Each saves config.json like the
// other sections (checked against the shared schema first; problems in words).
import { useEffect, useState } from 'react';
import type { Budget } from '../../shared/usage.ts';
import { BUDGET_PERIODS, NOTIFICATION_DEFAULTS, USAGE_DEFAULTS } from '../../shared/usage.ts';
import { formatUsd } from '../../shared/usage-text.ts';
import { Checkbox, DangerButton, Form, Table } from '../components/controls.tsx';
import { useDraft } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useConfig, useConfigSave } from './config-hooks.ts';

type BudgetDraft = { app: string; period: string; limit_usd: string; warn_at: string; enforce: boolean };
const EMPTY: BudgetDraft = { app: '', period: 'day', limit_usd: '', warn_at: '0.8', enforce: false };

/** A typed number as a number; what is not one stays text, so the schema's error quotes what was typed. */
const numberOrText = (s: string): number => {
  const n = Number(s);
  return (s.trim() !== '' && Number.isFinite(n) ? n : s) as number;
};

/** The draft as a budget entry: an empty app means every app (the field is left out). */
export function budgetFromDraft(d: BudgetDraft): Budget {
  return {
    ...(d.app.trim() ? { app: d.app.trim() } : {}),
    period: d.period as Budget['period'],
    limit_usd: numberOrText(d.limit_usd),
    warn_at: numberOrText(d.warn_at),
    enforce: d.enforce,
  };
}

function Saved({ show, testId }: { show: boolean; testId: string }) {
  return show ? (
    <span className="ok" role="status" data-testid={testId}>
      {' '}
      Saved.
    </span>
  ) : null;
}

export function BudgetSettings() {
  const { cfg } = useConfig();
  const budgets = (cfg.budgets ?? []) as Budget[];
  const [editing, setEditing] = useState<number | null>(null); // index, -1 for a new one
  const { draft, setDraft, text, flag } = useDraft<BudgetDraft>(EMPTY);
  const { problems, setProblems, save } = useConfigSave();
  const [saved, setSaved] = useState(false);

  const saveList = async (next: Budget[]) => {
    const ok = await save((c) => {
      c.budgets = next;
    });
    setSaved(ok);
    return ok;
  };
  const submit = async () => {
    const entry = budgetFromDraft(draft);
    const next = editing === -1 ? [...budgets, entry] : budgets.map((b, i) => (i === editing ? entry : b));
    if (await saveList(next)) setEditing(null);
  };
  const open = (i: number, d: BudgetDraft) => {
    setEditing(i);
    setDraft(d);
    setProblems(null);
    setSaved(false);
  };

  return (
    <div data-testid="budget-settings">
      <h3>Budgets</h3>
      <p className="hint">
        A warning at the threshold (a notification, once per period); with enforce, requests of that scope get 402
        budget_exceeded in their own format until the period ends. Days and months are local time.
      </p>
      <Table head={['apps', 'per', 'limit', 'warn at', 'at the limit', <span className="sr-only">actions</span>]}>
        {budgets.map((b, i) => (
          <tr key={i} data-testid="budget-setting">
            <td>{b.app ?? 'all apps'}</td>
            <td>{b.period === 'day' ? 'a day' : 'a month'}</td>
            <td>{formatUsd(b.limit_usd)}</td>
            <td>{Math.round((b.warn_at ?? 0.8) * 100)}%</td>
            <td>{b.enforce ? 'requests refused' : 'warned only'}</td>
            <td>
              <span className="actions">
                <button
                  onClick={() =>
                    open(i, {
                      app: b.app ?? '',
                      period: b.period,
                      limit_usd: String(b.limit_usd),
                      warn_at: String(b.warn_at ?? 0.8),
                      enforce: b.enforce ?? false,
                    })
                  }
                >
                  Edit
                </button>
                <DangerButton onClick={() => void saveList(budgets.filter((_, k) => k !== i))}>Remove</DangerButton>
              </span>
            </td>
          </tr>
        ))}
      </Table>
      {editing === null ? (
        <button onClick={() => open(-1, EMPTY)} data-testid="add-budget">
          Add budget
        </button>
      ) : (
        <Form className="card" onSubmit={() => void submit()} data-testid="budget-form">
          <label>
            App <input {...text('app')} placeholder="empty: all apps" data-testid="budget-app" />
          </label>
          <label>
            Per{' '}
            <select {...text('period')} data-testid="budget-period">
              {BUDGET_PERIODS.map((p) => (
                <option key={p} value={p}>
                  {p === 'day' ? 'day (from local midnight)' : 'month (from the 1st, local time)'}
                </option>
              ))}
            </select>
          </label>
          <label>
            Limit (USD) <input {...text('limit_usd')} inputMode="decimal" data-testid="budget-limit" />
          </label>
          <label>
            Warn at (a share of the limit: 0.8 is 80%){' '}
            <input {...text('warn_at')} inputMode="decimal" data-testid="budget-warn" />
          </label>
          <Checkbox {...flag('enforce')} label="Refuse requests once the limit is reached (else only warn)" row />
          <div className="actions">
            <button type="submit" data-testid="save-budget">
              Save budget
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </Form>
      )}
      <Problems messages={problems} />
      <Saved show={saved} testId="budgets-saved" />
    </div>
  );
}

type Switches = typeof NOTIFICATION_DEFAULTS;
const SWITCHES: [keyof Omit<Switches, 'min_interval_ms'>, string][] = [
  ['enabled', 'Notices on (desktop notifications, and the events the UI and tools can follow)'],
  ['provider_health', 'a provider goes down or comes back'],
  ['failover', 'failover starts serving a route'],
  ['budgets', 'a budget reaches its warning or its limit'],
  ['approvals', "an agent's tool call waits for your approval"],
  ['secret_guard', 'the secret guard let a secret go to a cloud provider (policy "warn")'],
];

export function NotificationSettings() {
  const { doc, cfg } = useConfig();
  const [on, setOn] = useState<Switches>(NOTIFICATION_DEFAULTS);
  const [interval, setInterval_] = useState(String(NOTIFICATION_DEFAULTS.min_interval_ms));
  const [usageOn, setUsageOn] = useState(USAGE_DEFAULTS.enabled);
  const { problems, save } = useConfigSave();
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!doc) return; // filled once config.json is loaded, so a late load never overwrites what was set
    const n = { ...NOTIFICATION_DEFAULTS, ...cfg.notifications };
    setOn(n);
    setInterval_(String(n.min_interval_ms));
    setUsageOn(cfg.usage?.enabled ?? USAGE_DEFAULTS.enabled);
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = async () => {
    setSaved(
      await save((c) => {
        c.notifications = { ...c.notifications, ...on, min_interval_ms: numberOrText(interval) };
        c.usage = { ...c.usage, enabled: usageOn };
      }),
    );
  };

  return (
    <div data-testid="notification-settings">
      <h3>Notifications</h3>
      {SWITCHES.map(([key, label]) => (
        <Checkbox
          key={key}
          checked={on[key]}
          disabled={key !== 'enabled' && !on.enabled}
          onChange={(e) => setOn({ ...on, [key]: e.target.checked })}
          label={label}
          data-testid={`notify-${key}`}
          row
        />
      ))}
      <label>
        At most one notice of a kind about the same thing every (milliseconds){' '}
        <input value={interval} onChange={(e) => setInterval_(e.target.value)} data-testid="notify-interval" />
      </label>
      <h3>Usage store</h3>
      <Checkbox
        checked={usageOn}
        onChange={(e) => setUsageOn(e.target.checked)}
        label="keep each request's tokens, latency and cost (the Overview's numbers and charts, budgets)"
        data-testid="usage-enabled"
        row
      />
      <Problems messages={problems} />
      <button onClick={() => void submit()} data-testid="save-notifications">
        Save notifications and usage
      </button>
      <Saved show={saved} testId="notifications-saved" />
    </div>
  );
}
