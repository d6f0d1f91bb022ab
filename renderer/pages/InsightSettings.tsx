// Settings' secret guard and request capture sections (docs/insight.md, "Secret guard" and "Request capture"): the guard's
// policy for cloud providers, and capture's switch and limits. The per-provider and per-app policies and capture's app
// list are kept as they are in config.json (shown, edited there). Saves config.json like the other sections.
import { useEffect, useState } from 'react';
import { CAPTURE_DEFAULTS, GUARD_POLICIES, type GuardPolicy, SECRET_GUARD_DEFAULTS } from '../../shared/insight.ts';
import { Checkbox, Select } from '../components/controls.tsx';
import { Problems } from '../components/Problems.tsx';
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

export function GuardCaptureSettings() {
  const { doc, cfg } = useConfig();
  const guard = (cfg.secret_guard ?? {}) as Guard;
  const [policy, setPolicy] = useState<GuardPolicy>(SECRET_GUARD_DEFAULTS.default);
  const [capture, setCapture] = useState(CAPTURE_DEFAULTS.enabled);
  const [limits, setLimits] = useState({
    max_requests: String(CAPTURE_DEFAULTS.max_requests),
    max_mb: String(CAPTURE_DEFAULTS.max_mb),
    days: String(CAPTURE_DEFAULTS.days),
  });
  const { problems, save } = useConfigSave();
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!doc) return; // filled once config.json is loaded, so a late load never overwrites what was set
    const g = (cfg.secret_guard ?? {}) as Guard;
    const c = { ...CAPTURE_DEFAULTS, ...((cfg.capture ?? {}) as Capture) };
    setPolicy(g.default ?? SECRET_GUARD_DEFAULTS.default);
    setCapture(c.enabled);
    setLimits({ max_requests: String(c.max_requests), max_mb: String(c.max_mb), days: String(c.days) });
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = async () => {
    setSaved(
      await save((c) => {
        c.secret_guard = { ...(c.secret_guard as object), default: policy };
        c.capture = {
          ...(c.capture as object),
          enabled: capture,
          max_requests: numberOrText(limits.max_requests),
          max_mb: numberOrText(limits.max_mb),
          days: numberOrText(limits.days),
        };
      }),
    );
  };
  const named = [
    ...Object.entries(guard.providers ?? {}).map(([k, v]) => `provider ${k}: ${v}`),
    ...Object.entries(guard.apps ?? {}).map(([k, v]) => `app ${k}: ${v}`),
  ];

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
        />
      </label>
      <p className="hint">
        {POLICY_WORDS[policy]}. Providers on this machine are not scanned.
        {named.length > 0 ? ` Set in config.json for some: ${named.join('; ')}.` : ''}
      </p>
      <h3>Request capture</h3>
      <Checkbox
        checked={capture}
        onChange={(e) => setCapture(e.target.checked)}
        label="keep the bodies of the last requests (the log's details show them; replay and token attribution need them)"
        data-testid="capture-enabled"
        row
      />
      <label>
        at most (requests){' '}
        <input
          value={limits.max_requests}
          onChange={(e) => setLimits({ ...limits, max_requests: e.target.value })}
          data-testid="capture-max-requests"
        />
      </label>{' '}
      <label>
        MB in all{' '}
        <input
          value={limits.max_mb}
          onChange={(e) => setLimits({ ...limits, max_mb: e.target.value })}
          data-testid="capture-max-mb"
        />
      </label>{' '}
      <label>
        days{' '}
        <input
          value={limits.days}
          onChange={(e) => setLimits({ ...limits, days: e.target.value })}
          data-testid="capture-days"
        />
      </label>
      <Problems messages={problems} />
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
