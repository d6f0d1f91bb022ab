// Settings' secret guard and request capture sections (docs/insight.md, "Secret guard" and "Request capture"): the guard's
// policy for cloud providers, its per-provider and per-app policies (rows added, edited, removed), and capture's switch,
// the apps it keeps (all, or only a list) and its limits. Saves config.json like the other sections, every other field
// kept; the schema's errors are said beside their field.
import { useEffect, useMemo, useState } from 'react';
import { bareAppName } from '../../shared/app-name.ts';
import type { ConfigInput } from '../../shared/config.ts';
import { CAPTURE_DEFAULTS, GUARD_POLICIES, type GuardPolicy, SECRET_GUARD_DEFAULTS } from '../../shared/insight.ts';
import { Checkbox, Select, Table } from '../components/controls.tsx';
import type { FieldRule } from '../components/field-errors.ts';
import { FieldError, invalidProps } from '../components/fields.tsx';
import { Problems } from '../components/Problems.tsx';
import { useApp } from '../store/react.ts';
import { useConfig, useConfigSave } from './config-hooks.ts';

const POLICY_WORDS: Record<GuardPolicy, string> = {
  off: 'off: nothing is scanned',
  warn: 'warn: sent as it is, logged, and a notice',
  redact: 'redact: placeholders sent, the originals restored in the answer',
  block: 'block: refused with an error naming what was found',
};

/** A typed number as a number; what is not one stays text, so the schema's error quotes what was typed. */
const numberOrText = (s: string): number => {
  const n = Number(s);
  return (s.trim() !== '' && Number.isFinite(n) ? n : s) as number;
};

type Guard = { default?: GuardPolicy; providers?: Record<string, GuardPolicy>; apps?: Record<string, GuardPolicy> };
type Capture = { enabled?: boolean; apps?: string[]; max_requests?: number; max_mb?: number; days?: number };
/** One row of a policy table: a provider's or an app's name and its policy. */
type Row = { name: string; policy: GuardPolicy };

const rowsOf = (t: Record<string, GuardPolicy> | undefined): Row[] =>
  Object.entries(t ?? {}).map(([name, policy]) => ({ name, policy }));

/**
 * The fields of the section, for the schema's errors beside them. A policy table's problem names the row by its name
 * (`secret_guard.apps.cursor`), found in the rows on screen.
 */
function fieldRules(providers: Row[], apps: Row[]): FieldRule[] {
  const rowOf = (rows: Row[], name: string) => rows.findIndex((r) => r.name.trim() === name);
  return [
    { path: /^secret_guard\.default$/, key: () => 'guard-default', label: 'The default policy' },
    {
      path: /^secret_guard\.providers\.(.*)$/,
      key: (m) => `guard-provider-${rowOf(providers, m[1]!)}`,
      label: 'The provider',
    },
    { path: /^secret_guard\.providers$/, key: () => 'guard-provider-new', label: 'The provider policies' },
    { path: /^secret_guard\.apps\.(.*)$/, key: (m) => `guard-app-${rowOf(apps, m[1]!)}`, label: 'The app name' },
    { path: /^secret_guard\.apps$/, key: () => 'guard-app-new', label: 'The app policies' },
    { path: /^capture\.enabled$/, key: () => 'capture-enabled', label: 'The capture switch' },
    { path: /^capture\.apps\[(\d+)\]$/, key: (m) => `capture-app-${m[1]}`, label: 'The app name' },
    { path: /^capture\.apps$/, key: () => 'capture-apps', label: 'The app list' },
    { path: /^capture\.max_requests$/, key: () => 'capture-max-requests', label: 'The most requests' },
    { path: /^capture\.max_mb$/, key: () => 'capture-max-mb', label: 'The MB in all' },
    { path: /^capture\.days$/, key: () => 'capture-days', label: 'The days' },
  ];
}

export function GuardCaptureSettings() {
  const { doc, cfg, providerNames } = useConfig();
  const logs = useApp((s) => s.logs);
  const [policy, setPolicy] = useState<GuardPolicy>(SECRET_GUARD_DEFAULTS.default);
  const [providerRows, setProviderRows] = useState<Row[]>([]);
  const [appRows, setAppRows] = useState<Row[]>([]);
  const [newProvider, setNewProvider] = useState<Row>({ name: '', policy: 'redact' });
  const [newApp, setNewApp] = useState<Row>({ name: '', policy: 'redact' });
  const [capture, setCapture] = useState(CAPTURE_DEFAULTS.enabled);
  const [onlyListed, setOnlyListed] = useState(false);
  const [captureApps, setCaptureApps] = useState<string[]>([]);
  const [newCaptureApp, setNewCaptureApp] = useState('');
  const [limits, setLimits] = useState({
    max_requests: String(CAPTURE_DEFAULTS.max_requests),
    max_mb: String(CAPTURE_DEFAULTS.max_mb),
    days: String(CAPTURE_DEFAULTS.days),
  });
  /** Errors the page finds itself (an empty name, an app listed twice) before anything is sent. */
  const [ownErrors, setOwnErrors] = useState<Record<string, string>>({});
  const {
    problems,
    fieldErrors,
    revalidate,
    save: saveConfig,
  } = useConfigSave(fieldRules(providerRows, appRows), 'Secret guard and capture');
  const errors = { ...fieldErrors, ...ownErrors };
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!doc) return; // filled once config.json is loaded, so a late load never overwrites what was set
    const g = (cfg.secret_guard ?? {}) as Guard;
    const c = { ...CAPTURE_DEFAULTS, ...((cfg.capture ?? {}) as Capture) };
    setPolicy(g.default ?? SECRET_GUARD_DEFAULTS.default);
    setProviderRows(rowsOf(g.providers));
    setAppRows(rowsOf(g.apps));
    setCapture(c.enabled);
    setOnlyListed(c.apps.length > 0);
    setCaptureApps(c.apps);
    setLimits({ max_requests: String(c.max_requests), max_mb: String(c.max_mb), days: String(c.days) });
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = (c: ConfigInput) => {
    c.secret_guard = {
      ...(c.secret_guard as object),
      default: policy,
      providers: Object.fromEntries(providerRows.map((r) => [r.name, r.policy])),
      apps: Object.fromEntries(appRows.map((r) => [r.name.trim(), r.policy])),
    };
    c.capture = {
      ...(c.capture as object),
      enabled: capture,
      // "All apps" is an empty list (config.json's way); the list typed stays on screen until the page is left.
      apps: onlyListed ? captureApps.map((a) => a.trim()) : [],
      max_requests: numberOrText(limits.max_requests),
      max_mb: numberOrText(limits.max_mb),
      days: numberOrText(limits.days),
    };
  };
  useEffect(() => {
    revalidate(apply);
    // The page's own errors (not those of the add fields) go as soon as their value is fixed, as the schema's do.
    setOwnErrors((prev) => {
      if (Object.keys(prev).every((k) => k.endsWith('-add'))) return prev;
      const kept = Object.fromEntries(Object.entries(prev).filter(([k]) => k.endsWith('-add')));
      return { ...kept, ...ownCheck() };
    });
  }, [policy, providerRows, appRows, capture, onlyListed, captureApps, limits]); // eslint-disable-line react-hooks/exhaustive-deps

  /** What the schema cannot see: an app named twice (names ignore case, paths, .exe/.app), "only" with no app. */
  const ownCheck = (): Record<string, string> => {
    const found: Record<string, string> = {};
    const twice = (names: string[], key: (i: number) => string) => {
      const first = new Map<string, number>();
      names.forEach((n, i) => {
        const bare = bareAppName(n);
        if (bare === '') return;
        const k = first.get(bare);
        if (k === undefined) first.set(bare, i);
        else
          found[key(i)] = `"${n.trim()}" is the same app as "${names[k]!.trim()}" (app names ignore case): remove one.`;
      });
    };
    twice(
      appRows.map((r) => r.name),
      (i) => `guard-app-${i}`,
    );
    if (onlyListed) {
      twice(captureApps, (i) => `capture-app-${i}`);
      if (captureApps.length === 0) found['capture-apps'] = 'Add at least one app to the list, or choose "all apps".';
    }
    return found;
  };

  const submit = async () => {
    const own = ownCheck();
    setOwnErrors(own);
    if (Object.keys(own).length > 0) return setSaved(false);
    setSaved(await saveConfig(apply));
  };

  /** Apps Switchboard has seen (the recent log, and the app rules), by bare name, for the app fields' suggestions. */
  const seenApps = useMemo(() => {
    const byBare = new Map<string, string>();
    for (const r of cfg.app_rules ?? []) if (r.app) byBare.set(bareAppName(r.app), r.app.trim());
    for (const e of logs) if (e.app && !byBare.has(bareAppName(e.app))) byBare.set(bareAppName(e.app), e.app);
    return [...byBare.values()].sort((a, b) => a.localeCompare(b));
  }, [logs, cfg.app_rules]);
  const unused = (names: string[], taken: string[]) => {
    const bare = new Set(taken.map(bareAppName));
    return names.filter((n) => !bare.has(bareAppName(n)));
  };
  /** Configured providers without a row of their own (a provider has one policy at most). */
  const freeProviders = providerNames.filter((n) => !providerRows.some((r) => r.name === n));

  const addProvider = () => {
    const name = newProvider.name || freeProviders[0];
    if (!name) return;
    setProviderRows([...providerRows, { name, policy: newProvider.policy }]);
    setNewProvider({ name: '', policy: newProvider.policy });
  };
  const addApp = () => {
    const name = newApp.name.trim();
    const same = appRows.find((r) => bareAppName(r.name) === bareAppName(name));
    const err = !name
      ? "Type the app's name, e.g. cursor (or pick one Switchboard has seen)."
      : same
        ? `"${same.name}" already has a policy (app names ignore case): change it in its row.`
        : null;
    setOwnErrors(err ? { ...ownErrors, 'guard-app-add': err } : {});
    if (err) return;
    setAppRows([...appRows, { name, policy: newApp.policy }]);
    setNewApp({ name: '', policy: newApp.policy });
  };
  const addCaptureApp = () => {
    const name = newCaptureApp.trim();
    const same = captureApps.find((a) => bareAppName(a) === bareAppName(name));
    const err = !name
      ? "Type the app's name, e.g. cursor (or pick one Switchboard has seen)."
      : same
        ? `"${same}" is already in the list (app names ignore case).`
        : null;
    setOwnErrors(err ? { ...ownErrors, 'capture-app-add': err } : {});
    if (err) return;
    setCaptureApps([...captureApps, name]);
    setNewCaptureApp('');
  };
  const setRow = (rows: Row[], i: number, patch: Partial<Row>) =>
    rows.map((r, k) => (k === i ? { ...r, ...patch } : r));

  return (
    <div data-testid="guard-capture-settings">
      <h3>Secret guard</h3>
      <label>
        Requests to cloud providers that hold a secret (keys, private keys, tokens, .env values){' '}
        <Select
          options={GUARD_POLICIES}
          value={policy}
          onChange={(e) => setPolicy(e.target.value as GuardPolicy)}
          data-testid="guard-default"
          {...invalidProps('guard-default', errors)}
        />
      </label>
      <FieldError field="guard-default" errors={errors} />
      <p className="hint">
        {POLICY_WORDS[policy]}. Providers on this machine (type ollama, or an address on this machine) are never scanned
        unless they have a policy of their own below. When a provider and an app both have one, the stricter applies.
      </p>
      <h4 id="guard-providers-heading">Policy per provider</h4>
      {providerRows.length === 0 ? (
        <p className="hint">No provider has a policy of its own: each follows the policy above.</p>
      ) : (
        <Table head={['provider', 'policy', <span className="sr-only">actions</span>]}>
          {providerRows.map((r, i) => (
            <tr key={i} data-testid={`guard-provider-row-${i}`}>
              <td>
                <Select
                  aria-label={`Provider of policy ${i + 1}`}
                  value={r.name}
                  onChange={(e) => setProviderRows(setRow(providerRows, i, { name: e.target.value }))}
                  // Only configured providers (the schema refuses another name); one set in config.json for a provider
                  // since removed stays listed, so its error can be seen and the row removed.
                  options={[
                    ...(providerNames.includes(r.name) ? [] : [r.name]),
                    ...providerNames.filter((n) => n === r.name || !providerRows.some((o) => o.name === n)),
                  ]}
                  data-testid={`guard-provider-name-${i}`}
                  {...invalidProps(`guard-provider-${i}`, errors)}
                />
                <FieldError field={`guard-provider-${i}`} errors={errors} />
              </td>
              <td>
                <Select
                  aria-label={`Policy for provider ${r.name}`}
                  options={GUARD_POLICIES}
                  value={r.policy}
                  onChange={(e) => setProviderRows(setRow(providerRows, i, { policy: e.target.value as GuardPolicy }))}
                  data-testid={`guard-provider-policy-${i}`}
                />
              </td>
              <td>
                <button
                  className="danger"
                  aria-label={`Remove the policy for provider ${r.name}`}
                  onClick={() => setProviderRows(providerRows.filter((_, k) => k !== i))}
                  data-testid={`guard-provider-remove-${i}`}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {freeProviders.length > 0 ? (
        <div className="row" role="group" aria-labelledby="guard-providers-heading">
          <label>
            Provider{' '}
            <Select
              options={freeProviders}
              value={newProvider.name || freeProviders[0]}
              onChange={(e) => setNewProvider({ ...newProvider, name: e.target.value })}
              data-testid="guard-provider-new"
              {...invalidProps('guard-provider-new', errors)}
            />
          </label>
          <label>
            Policy{' '}
            <Select
              options={GUARD_POLICIES}
              value={newProvider.policy}
              onChange={(e) => setNewProvider({ ...newProvider, policy: e.target.value as GuardPolicy })}
              data-testid="guard-provider-new-policy"
            />
          </label>
          <button onClick={addProvider} data-testid="guard-provider-add">
            Add provider policy
          </button>
        </div>
      ) : (
        <p className="hint">
          {providerNames.length === 0 ? 'No provider is set up yet.' : 'Every provider has a policy of its own.'}
        </p>
      )}
      <FieldError field="guard-provider-new" errors={errors} />
      <h4 id="guard-apps-heading">Policy per app</h4>
      {appRows.length === 0 ? (
        <p className="hint">No app has a policy of its own.</p>
      ) : (
        <Table head={['app', 'policy', <span className="sr-only">actions</span>]}>
          {appRows.map((r, i) => (
            <tr key={i} data-testid={`guard-app-row-${i}`}>
              <td>
                <input
                  aria-label={`App of policy ${i + 1}`}
                  value={r.name}
                  list="guard-seen-apps"
                  onChange={(e) => setAppRows(setRow(appRows, i, { name: e.target.value }))}
                  data-testid={`guard-app-name-${i}`}
                  {...invalidProps(`guard-app-${i}`, errors)}
                />
                <FieldError field={`guard-app-${i}`} errors={errors} />
              </td>
              <td>
                <Select
                  aria-label={`Policy for app ${r.name || i + 1}`}
                  options={GUARD_POLICIES}
                  value={r.policy}
                  onChange={(e) => setAppRows(setRow(appRows, i, { policy: e.target.value as GuardPolicy }))}
                  data-testid={`guard-app-policy-${i}`}
                />
              </td>
              <td>
                <button
                  className="danger"
                  aria-label={`Remove the policy for app ${r.name || i + 1}`}
                  onClick={() => setAppRows(appRows.filter((_, k) => k !== i))}
                  data-testid={`guard-app-remove-${i}`}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <div className="row" role="group" aria-labelledby="guard-apps-heading">
        <label>
          App{' '}
          <input
            placeholder="e.g. cursor"
            list="guard-seen-apps"
            autoComplete="off"
            value={newApp.name}
            onChange={(e) => setNewApp({ ...newApp, name: e.target.value })}
            onKeyDown={(e) => e.key === 'Enter' && addApp()}
            data-testid="guard-app-new"
            {...invalidProps('guard-app-add', errors)}
          />
        </label>
        <label>
          Policy{' '}
          <Select
            options={GUARD_POLICIES}
            value={newApp.policy}
            onChange={(e) => setNewApp({ ...newApp, policy: e.target.value as GuardPolicy })}
            data-testid="guard-app-new-policy"
          />
        </label>
        <button onClick={addApp} data-testid="guard-app-add">
          Add app policy
        </button>
      </div>
      <FieldError field="guard-app-add" errors={errors} />
      <FieldError field="guard-app-new" errors={errors} />
      <datalist id="guard-seen-apps">
        {unused(
          seenApps,
          appRows.map((r) => r.name),
        ).map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      <h3>Request capture</h3>
      <Checkbox
        checked={capture}
        onChange={(e) => setCapture(e.target.checked)}
        label="keep the bodies of the last requests (the log's details show them; replay and token attribution need them)"
        data-testid="capture-enabled"
        row
      />
      <FieldError field="capture-enabled" errors={errors} />
      <fieldset>
        <legend>Whose requests</legend>
        <label className="row">
          <input
            type="radio"
            name="capture-scope"
            checked={!onlyListed}
            onChange={() => setOnlyListed(false)}
            data-testid="capture-all-apps"
          />{' '}
          all apps
        </label>
        <label className="row">
          <input
            type="radio"
            name="capture-scope"
            checked={onlyListed}
            onChange={() => setOnlyListed(true)}
            data-testid="capture-only-apps"
          />{' '}
          only these apps (names ignore case, paths and .exe/.app)
        </label>
        {onlyListed && (
          <>
            <ul data-testid="capture-apps">
              {captureApps.map((a, i) => (
                <li key={i}>
                  <input
                    aria-label={`Captured app ${i + 1}`}
                    value={a}
                    list="capture-seen-apps"
                    onChange={(e) => setCaptureApps(captureApps.map((x, k) => (k === i ? e.target.value : x)))}
                    data-testid={`capture-app-${i}`}
                    {...invalidProps(`capture-app-${i}`, errors)}
                  />{' '}
                  <button
                    className="danger"
                    aria-label={`Remove ${a || `app ${i + 1}`} from the captured apps`}
                    onClick={() => setCaptureApps(captureApps.filter((_, k) => k !== i))}
                    data-testid={`capture-app-remove-${i}`}
                  >
                    Remove
                  </button>
                  <FieldError field={`capture-app-${i}`} errors={errors} />
                </li>
              ))}
            </ul>
            <div className="row">
              <label>
                App{' '}
                <input
                  placeholder="e.g. cursor"
                  list="capture-seen-apps"
                  autoComplete="off"
                  value={newCaptureApp}
                  onChange={(e) => setNewCaptureApp(e.target.value)}
                  onKeyDown={(e) => e.key === 'Enter' && addCaptureApp()}
                  data-testid="capture-app-new"
                  {...invalidProps('capture-app-add', errors)}
                />
              </label>
              <button onClick={addCaptureApp} data-testid="capture-app-add">
                Add app
              </button>
            </div>
            <FieldError field="capture-app-add" errors={errors} />
            <FieldError field="capture-apps" errors={errors} />
            <datalist id="capture-seen-apps">
              {unused(seenApps, captureApps).map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
          </>
        )}
      </fieldset>
      <label>
        at most (requests){' '}
        <input
          value={limits.max_requests}
          onChange={(e) => setLimits({ ...limits, max_requests: e.target.value })}
          data-testid="capture-max-requests"
          {...invalidProps('capture-max-requests', errors)}
        />
      </label>{' '}
      <label>
        MB in all{' '}
        <input
          value={limits.max_mb}
          onChange={(e) => setLimits({ ...limits, max_mb: e.target.value })}
          data-testid="capture-max-mb"
          {...invalidProps('capture-max-mb', errors)}
        />
      </label>{' '}
      <label>
        days{' '}
        <input
          value={limits.days}
          onChange={(e) => setLimits({ ...limits, days: e.target.value })}
          data-testid="capture-days"
          {...invalidProps('capture-days', errors)}
        />
      </label>
      <FieldError field="capture-max-requests" errors={errors} />
      <FieldError field="capture-max-mb" errors={errors} />
      <FieldError field="capture-days" errors={errors} />
      <Problems messages={problems} announced />
      <button onClick={() => void submit()} data-testid="save-guard-capture">
        Save secret guard and capture
      </button>
      {saved && (
        <span className="ok" role="status" data-testid="guard-capture-saved">
          {' '}
          Saved.
        </span>
      )}
    </div>
  );
}
