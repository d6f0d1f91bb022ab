// Settings: listen_port, log_requests, start_on_login, the limits in force (in words), agent API keys, budgets,
// notifications and the usage store (UsageSettings.tsx), and the backups of config.json (Restore).
import { useEffect, useState } from 'react';
import type { ConfigInput } from '../../shared/config.ts';
import type { AgentKeyInfo } from '../../shared/ipc.ts';
import { Checkbox, DangerButton, ErrorLine } from '../components/controls.tsx';
import { limitsInWords, storeInWords } from '../components/limits-text.ts';
import { Problems } from '../components/Problems.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useApp } from '../store/react.ts';
import { ConfigBackups } from './ConfigBackups.tsx';
import { DesktopAppSettings } from './DesktopAppSettings.tsx';
import { McpServers } from './McpServers.tsx';
import { useConfigSave, useUnsaved } from './config-hooks.ts';
import type { FieldRule } from '../components/field-errors.ts';
import { FieldError, invalidProps, SavedLine, UnsavedMark } from '../components/fields.tsx';
import { BudgetSettings, NotificationSettings } from './UsageSettings.tsx';
import { GuardCaptureSettings } from './InsightSettings.tsx';
import { Time } from './agents/parts.tsx';
import { PriceSettings } from './PriceSettings.tsx';

/** The fields of Settings' own form, for errors beside them. */
const FIELDS: FieldRule[] = [
  { path: /^listen_port$/, key: () => 'listen-port', label: 'The port' },
  { path: /^log_requests$/, key: () => 'log-requests', label: 'The request log switch' },
  { path: /^start_on_login$/, key: () => 'start-on-login', label: 'The start on login switch' },
];

export function SettingsPage() {
  const api = useApi();
  const doc = useApp((s) => s.configDoc);
  const cfg = (doc?.config ?? {}) as { listen_port?: number; log_requests?: boolean; start_on_login?: boolean };
  const [port, setPort] = useState('');
  const [logRequests, setLogRequests] = useState(true);
  const [startOnLogin, setStartOnLogin] = useState(false);
  const { problems, fieldErrors, revalidate, saved: savedAs, save: saveConfig } = useConfigSave(FIELDS, 'Settings');
  const [keyError, setKeyError] = useState<string | null>(null);
  /** The stored document the form was last filled from (edits are compared with it only once it is). */
  const [draftOf, setDraftOf] = useState<typeof doc>(null);
  const [saved, setSaved] = useState(false);
  const [keys, setKeys] = useState<AgentKeyInfo[]>([]);
  const [newKey, setNewKey] = useState<string | null>(null);
  /** The conflict check of the typed port: null while unchecked or fine, else who holds it and the fix. */
  const [portTaken, setPortTaken] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const runningPort = useApp((s) => s.status?.listen_port);
  const pinned = useApp((s) => s.status?.listen_port_pinned === true);
  const limits = useApp((s) => s.status?.limits);
  const limitsText = limits ? limitsInWords(limits) : null;
  const storeText = storeInWords(useApp((s) => s.status?.store));

  // Checks the typed port as the user types (debounced); the saved and the running port count as fine.
  useEffect(() => {
    setPortTaken(null);
    const n = Number(port);
    if (!/^\d+$/.test(port.trim()) || n < 1 || n > 65535 || n === cfg.listen_port || n === runningPort)
      return setChecking(false);
    setChecking(true);
    let live = true;
    const t = setTimeout(() => {
      void api.checkPort({ port: n }).then((r) => {
        if (!live) return;
        setChecking(false);
        if (r.ok) setPortTaken(r.data.free ? null : (r.data.message ?? `Port ${n} is taken.`));
      });
    }, 300);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [port, cfg.listen_port, runningPort, api]);

  useEffect(() => {
    if (!doc) return; // filled once config.json is loaded, so a late load never overwrites what was typed
    setPort(String(cfg.listen_port ?? 11434));
    setLogRequests(cfg.log_requests ?? true);
    setStartOnLogin(cfg.start_on_login ?? false);
    setDraftOf(doc);
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const loadKeys = () => void api.listAgentKeys().then((r) => r.ok && setKeys(r.data.data));
  useEffect(loadKeys, [api]);

  const apply = (next: ConfigInput) => {
    // A number the schema can judge: "abc" stays a string so the error says what was typed.
    const n = Number(port);
    next.listen_port = (port.trim() !== '' && Number.isFinite(n) ? n : port) as number;
    next.log_requests = logRequests;
    next.start_on_login = startOnLogin;
  };
  const dirty =
    doc !== null &&
    draftOf === doc &&
    (port !== String(cfg.listen_port ?? 11434) ||
      logRequests !== (cfg.log_requests ?? true) ||
      startOnLogin !== (cfg.start_on_login ?? false));
  useUnsaved('settings', dirty);
  useEffect(() => revalidate(apply), [port, logRequests, startOnLogin]); // eslint-disable-line react-hooks/exhaustive-deps

  const save = async () => {
    if (portTaken || checking) return;
    setSaved(await saveConfig(apply));
  };

  return (
    <section data-testid="page-settings">
      <h2>
        Settings <UnsavedMark dirty={dirty} />
      </h2>
      <h3>Port</h3>
      {runningPort !== undefined && (
        <p data-testid="port-served">
          {pinned ? (
            <>
              Switchboard is listening on <strong>port {runningPort}</strong> for this run: it was started with{' '}
              <code>--port {runningPort}</code>, which overrides the port saved in config.json
              {cfg.listen_port !== undefined ? ` (${cfg.listen_port})` : ''}. The saved port applies at the next start
              without <code>--port</code>.
            </>
          ) : (
            <>
              Switchboard is listening on <strong>port {runningPort}</strong>
              {cfg.listen_port !== undefined && cfg.listen_port !== runningPort
                ? ` (config.json says ${cfg.listen_port}: Switchboard could not move there and kept this port)`
                : ''}
              . Tools connected from the Connect page point here.
            </>
          )}
        </p>
      )}
      <label>
        {pinned ? 'Port saved in config.json' : 'Port'}{' '}
        <input
          value={port}
          inputMode="numeric"
          onChange={(e) => setPort(e.target.value)}
          data-testid="listen-port"
          aria-describedby="port-hint"
          {...invalidProps('listen-port', fieldErrors)}
        />
      </label>
      <FieldError field="listen-port" errors={fieldErrors} />
      <ErrorLine message={portTaken} alert testId="port-taken" />
      <p className="hint" id="port-hint">
        Saving a new port moves Switchboard to it at once (the old port is released once the new one answers) and this
        page follows it; if the new port is taken, Switchboard keeps the old one and says so. Port 11434 is also
        Ollama&apos;s: when Ollama holds it, the check above says so and how to move either.
      </p>
      <h3>Logging and start-up</h3>
      <Checkbox
        checked={logRequests}
        onChange={(e) => setLogRequests(e.target.checked)}
        label="Keep a request log file (requests.jsonl beside config.json, read back after a restart)"
        data-testid="log-requests"
        row
      />
      <Checkbox
        checked={startOnLogin}
        onChange={(e) => setStartOnLogin(e.target.checked)}
        label="Start Switchboard when you log in (desktop app)"
        data-testid="start-on-login"
        row
      />
      <Problems messages={problems} announced />
      <button onClick={() => void save()} disabled={portTaken !== null || checking} data-testid="save-settings">
        Save settings
      </button>
      {saved && !dirty && (
        <>
          {' '}
          <SavedLine
            saved={savedAs}
            testId="settings-saved"
            extra={doc?.backup ? `Previous config kept as backup ${doc.backup.id}.` : undefined}
          />
        </>
      )}
      {saved && !dirty && doc?.listen && (
        <p className={doc.listen.outcome === 'failed' ? 'error' : 'hint'} data-testid="listen-change">
          {doc.listen.message}
        </p>
      )}
      <h3>Limits</h3>
      {limitsText && (
        <div data-testid="limits-in-force">
          <p data-testid="limits-headline">{limitsText.headline}</p>
          {limitsText.lines.length > 0 && (
            <ul>
              {limitsText.lines.map((line) => (
                <li key={line} data-testid="limits-scope">
                  {line}
                </li>
              ))}
            </ul>
          )}
          <p className="hint">
            {limitsText.reason} Limits are set in config.json ("limits"); see docs/gateway.md, "Limits".
          </p>
        </div>
      )}
      {storeText && (
        <p className={storeText.down ? 'error' : 'hint'} data-testid="store-status" role="status">
          {storeText.text}
        </p>
      )}
      <h3>Agent API keys</h3>
      <ul>
        {keys.map((k) => (
          <li key={k.id} data-testid="agent-key">
            <strong>{k.label ?? (k.ui ? 'Switchboard UI' : 'unlabelled key')}</strong>{' '}
            <span className="mono small">{k.id}</span>
            {k.tenant !== 'default' ? ` (tenant ${k.tenant})` : ''}, made <Time iso={k.created_at} />{' '}
            <DangerButton
              aria-label={`Revoke ${k.label ?? k.id}`}
              onClick={() =>
                void api.revokeAgentKey({ id: k.id }).then((r) => {
                  setKeyError(r.ok ? null : failureText(r.failure).join(' '));
                  loadKeys();
                })
              }
            >
              Revoke
            </DangerButton>
          </li>
        ))}
      </ul>
      <button
        onClick={() =>
          void api.createAgentKey({}).then((r) => {
            if (r.ok) setNewKey(r.data.key);
            setKeyError(r.ok ? null : failureText(r.failure).join(' '));
            loadKeys();
          })
        }
      >
        Create key
      </button>
      <ErrorLine message={keyError} testId="agent-key-error" />
      {newKey && (
        <p>
          New key (shown once): <code className="mono">{newKey}</code>
        </p>
      )}
      <BudgetSettings />
      <PriceSettings />
      <NotificationSettings />
      <GuardCaptureSettings />
      <McpServers />
      <ConfigBackups />
      <DesktopAppSettings />
    </section>
  );
}
