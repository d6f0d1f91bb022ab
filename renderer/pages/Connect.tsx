// Connect: the base URL of each wire format with a ready snippet (curl, the official SDK in Python and TypeScript),
// one card per tool with its state, Connect and Undo (a tool that points elsewhere is replaced only after a confirm
// that says what), the values and steps for tools set up by hand, and Try it: one message through the current routes.
import { useEffect, useState } from 'react';
import type { ConnectState, ToolStatus, TryResult } from '../../shared/connect.ts';
import { formatCount, formatUsd } from '../../shared/usage-text.ts';
import { ErrorLine, Form } from '../components/controls.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { FORMAT_HINTS, FORMAT_LABELS, type SnippetFormat, snippetsFor } from '../components/snippets.ts';
import { undoAnywayQuestion } from '../store/connect.ts';
import { useConfig } from './config-hooks.ts';
import { applyFix, fixFor, type RouteFix } from './connect-fix.ts';
import { presetHash } from './Presets.tsx';
import { useApp, useAppStore } from '../store/react.ts';

const STATE_TEXT: Record<ConnectState, string> = {
  connected: 'connected',
  not_connected: 'not connected',
  elsewhere: 'points elsewhere',
  broken: 'settings file broken',
  not_installed: 'not installed',
  manual: 'set up by hand',
};
const FORMATS: SnippetFormat[] = ['openai', 'anthropic', 'gemini', 'ollama'];
/** The wire format a tool speaks, in words. */
const FORMAT_WORDS: Record<ToolStatus['format'], string> = {
  openai: "OpenAI's Chat Completions API",
  anthropic: "Anthropic's Messages API",
  gemini: "Gemini's API",
  ollama: "Ollama's API",
  responses: "OpenAI's Responses API",
};
const LANGS = [
  ['curl', 'curl'],
  ['python', 'Python'],
  ['typescript', 'TypeScript'],
] as const;

function CopyRow({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="row copy-row">
      <span className="copy-label">{label}</span>
      <code className="mono" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} label={`Copy ${label}`} />
    </div>
  );
}

function FormatCard({ format }: { format: SnippetFormat }) {
  const urls = useApp((s) => s.connect?.base_urls);
  const [lang, setLang] = useState<(typeof LANGS)[number][0]>('curl');
  if (!urls) return null;
  const snippet = snippetsFor(format, urls)[lang];
  const name = FORMAT_LABELS[format];
  return (
    <div className="card" data-testid={`format-${format}`}>
      <h4>{name}</h4>
      <CopyRow label={`${name} base URL`} value={urls[format]} testId={`base-url-${format}`} />
      <p className="hint">{FORMAT_HINTS[format]}</p>
      <div className="row" role="group" aria-label={`${name} snippet language`}>
        {LANGS.map(([id, label]) => (
          <button
            key={id}
            aria-pressed={lang === id}
            className={lang === id ? 'selected' : undefined}
            onClick={() => setLang(id)}
          >
            {label}
          </button>
        ))}
        <CopyButton text={snippet} label={`Copy the ${name} ${lang} snippet`} />
      </div>
      <pre className="snippet" data-testid={`snippet-${format}`} tabIndex={0}>
        {snippet}
      </pre>
    </div>
  );
}

/** The values to paste, with copy buttons, and the steps. */
function ByHand({ tool }: { tool: ToolStatus }) {
  return (
    <>
      {tool.values.map((v) => (
        <CopyRow key={v.label} label={v.label} value={v.value} />
      ))}
      {tool.steps.length > 0 && (
        <ol className="small">
          {tool.steps.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
      )}
    </>
  );
}

/** The problems of a tool's models, one line each: the message, and the models it is about ("Opus tier", …). */
function groupProblems(routes: ToolStatus['routes']): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const r of routes) if (r.problem) by.set(r.problem.message, [...(by.get(r.problem.message) ?? []), r.label]);
  return [...by.entries()];
}

/** Who answers each of the tool's usual models, with a warning and its fix where it would not be the right one. */
function ToolRoutes({ tool }: { tool: ToolStatus }) {
  const store = useAppStore();
  const { cfg } = useConfig();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  if (tool.routes.length === 0) return null;
  const problems = tool.routes.filter((r) => r.problem);
  const fix = async (f: RouteFix) => {
    if (f.kind === 'preset') return void (window.location.hash = presetHash(f.preset));
    if (f.kind === 'routing') return void (window.location.hash = '#/routing');
    setBusy(true);
    const s = store.getState();
    const next = s.currentConfig();
    applyFix(next, f);
    const r = await s.saveConfig(next);
    setBusy(false);
    const text = r.ok
      ? `${f.label}: saved. ${tool.name}'s models now go where they should.`
      : `Not saved: ${r.messages.join(' ')}`;
    setDone(text);
    s.announce(text);
    await s.loadConnect();
  };
  // One fix per distinct problem (the tiers often share one rule).
  const fixes = new Map<string, RouteFix>();
  for (const r of problems) {
    const f = fixFor(r.problem!, cfg);
    fixes.set(JSON.stringify(f), f);
  }
  return (
    <div className="tool-routes" data-testid={`routes-${tool.id}`}>
      <table className="small">
        <caption className="sr-only">Which provider answers {tool.name}&apos;s models</caption>
        <thead>
          <tr>
            <th scope="col">{tool.name}&apos;s model</th>
            <th scope="col">answered by</th>
          </tr>
        </thead>
        <tbody>
          {tool.routes.map((r) => (
            <tr key={r.label} data-testid={`route-${tool.id}`} className={r.problem ? 'route-bad' : undefined}>
              <td>
                {r.label}: <span className="mono">{r.model}</span>
                <span className="sr-only"> ({r.source})</span>
              </td>
              <td>
                {r.provider ? (
                  <>
                    <strong>{r.provider}</strong> <span className="hint">({r.via})</span>
                  </>
                ) : (
                  'no provider'
                )}
                {r.problem ? ' ⚠' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {problems.length > 0 && (
        <div className="field-warning" data-testid={`route-warning-${tool.id}`}>
          {groupProblems(problems).map(([message, labels]) => (
            <p key={message}>
              ⚠ {labels.join(', ')}: {message}
            </p>
          ))}
          <div className="row">
            {[...fixes.values()].map((f) => (
              <button key={f.label} disabled={busy} onClick={() => void fix(f)} data-testid={`route-fix-${tool.id}`}>
                {f.label}
              </button>
            ))}
          </div>
        </div>
      )}
      {done && (
        <p className="small" data-testid={`route-fixed-${tool.id}`}>
          {done}
        </p>
      )}
    </div>
  );
}

function ToolCard({ tool }: { tool: ToolStatus }) {
  const store = useAppStore();
  const outcome = useApp((s) => s.connectOutcomes[tool.id]);
  const [busy, setBusy] = useState(false);
  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    await what();
    setBusy(false);
  };
  const file = tool.kind === 'file';
  const canConnect = file && tool.state !== 'connected' && tool.state !== 'broken' && tool.state !== 'not_installed';
  return (
    <div className="card tool" data-testid={`tool-${tool.id}`}>
      <h4>
        {tool.name}{' '}
        <span className={`pill connect-${tool.state}`} data-testid={`tool-state-${tool.id}`}>
          {STATE_TEXT[tool.state]}
        </span>
      </h4>
      {tool.state === 'elsewhere' && tool.current && (
        <p>
          Points at <code className="mono">{tool.current}</code>
        </p>
      )}
      {tool.detail && <p className={tool.state === 'broken' ? 'error' : 'small'}>{tool.detail}</p>}
      {tool.files.length > 0 && (
        <p className="small">
          {tool.files.map((f) => `${f.role}: ${f.path}${f.exists ? '' : ' (not there yet)'}`).join('; ')}
        </p>
      )}
      <p className="small">
        App name <span className="mono">{tool.app}</span>, speaks {FORMAT_WORDS[tool.format]}.
      </p>
      <ToolRoutes tool={tool} />
      <div className="row">
        {canConnect && (
          <button
            disabled={busy}
            data-testid={`connect-${tool.id}`}
            onClick={() => void act(() => store.getState().connectTool(tool.id, (q) => window.confirm(q)))}
          >
            {tool.state === 'elsewhere' ? 'Connect (replace)…' : 'Connect'}
          </button>
        )}
        {file && tool.can_undo && (
          <button
            disabled={busy}
            data-testid={`undo-${tool.id}`}
            onClick={() => void act(() => store.getState().undoConnect(tool.id))}
          >
            Undo
          </button>
        )}
      </div>
      {outcome && (
        <p
          className={
            outcome.kind === 'error'
              ? 'error'
              : outcome.kind === 'changed'
                ? 'field-warning'
                : outcome.kind === 'kept'
                  ? 'hint'
                  : 'ok'
          }
          role="status"
          data-testid={`outcome-${tool.id}`}
        >
          {outcome.message}
        </p>
      )}
      {outcome?.kind === 'changed' && file && tool.can_undo && (
        <button
          disabled={busy}
          data-testid={`undo-anyway-${tool.id}`}
          onClick={() => {
            if (window.confirm(undoAnywayQuestion(tool))) void act(() => store.getState().undoConnect(tool.id, true));
          }}
        >
          Undo anyway…
        </button>
      )}
      {tool.kind === 'manual' || tool.state === 'broken' ? (
        <div data-testid={`values-${tool.id}`}>
          <ByHand tool={tool} />
        </div>
      ) : (
        <details>
          <summary>What Connect writes (to do it by hand)</summary>
          <ByHand tool={tool} />
        </details>
      )}
    </div>
  );
}

function TryIt() {
  const store = useAppStore();
  const [model, setModel] = useState('');
  const [message, setMessage] = useState('Say hello in five words.');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TryResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    const r = await store.getState().tryMessage({ model: model.trim(), message });
    setBusy(false);
    setResult(r.ok ? r.result : null);
    setError(r.ok ? null : r.message);
  };
  const tokens = (r: TryResult) =>
    r.prompt_tokens === null
      ? 'not reported'
      : `${formatCount(r.prompt_tokens)} prompt, ${formatCount(r.completion_tokens ?? 0)} completion`;
  return (
    <Form className="card" data-testid="try-it" onSubmit={() => void run()}>
      <h3>Try it</h3>
      <p className="hint">
        Sends one message through the current routes, as a tool would, and shows who answered and why.
      </p>
      <label>
        Model{' '}
        <input
          value={model}
          onChange={(e) => setModel(e.target.value)}
          placeholder="e.g. gpt-4o-mini"
          data-testid="try-model"
        />
      </label>
      <label>
        Message{' '}
        <textarea rows={2} value={message} onChange={(e) => setMessage(e.target.value)} data-testid="try-message" />
      </label>
      <button type="submit" disabled={busy} data-testid="try-send">
        {busy ? 'Sending…' : 'Send'}
      </button>
      <ErrorLine message={error} alert testId="try-error" />
      {result && (
        <div data-testid="try-result" role="status">
          <p className={result.ok ? undefined : 'error'} data-testid="try-answer">
            {result.ok ? result.answer : `${result.status}: ${result.answer}`}
          </p>
          <dl className="facts">
            <dt>provider</dt>
            <dd data-testid="try-provider">{result.provider ?? 'none'}</dd>
            <dt>model</dt>
            <dd className="mono">{result.model ?? '—'}</dd>
            <dt>latency</dt>
            <dd>{Math.round(result.latency_ms)} ms</dd>
            <dt>tokens</dt>
            <dd data-testid="try-tokens">{tokens(result)}</dd>
            <dt>cost</dt>
            <dd data-testid="try-cost">{result.cost_usd === null ? 'no known price' : formatUsd(result.cost_usd)}</dd>
          </dl>
          {result.why.length > 0 && (
            <details open>
              <summary>Why this provider</summary>
              <ul data-testid="try-why">
                {result.why.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </Form>
  );
}

/**
 * Connect all: every installed tool that does not point anywhere yet is connected, one after the other (as `switchboard
 * connect --all`); the ones that point elsewhere or whose file is broken are skipped and named (each card asks first).
 */
function ConnectAll({ tools }: { tools: ToolStatus[] }) {
  const store = useAppStore();
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const waiting = tools.filter((t) => t.kind === 'file' && t.state === 'not_connected');
  const skipped = tools.filter((t) => t.kind === 'file' && (t.state === 'elsewhere' || t.state === 'broken'));
  const run = async () => {
    setBusy(true);
    const done: string[] = [];
    const failed: string[] = [];
    for (const t of waiting) {
      const r = await store.getState().connectTool(t.id, () => false);
      (r.kind === 'done' ? done : failed).push(t.name);
    }
    setBusy(false);
    const text = [
      done.length ? `Connected ${done.join(', ')}.` : 'Nothing was connected.',
      failed.length ? `Not connected: ${failed.join(', ')} (see their cards).` : '',
      skipped.length
        ? `Skipped (they point elsewhere or their file does not parse): ${skipped.map((t) => t.name).join(', ')}.`
        : '',
    ]
      .filter(Boolean)
      .join(' ');
    setSaid(text);
    store.getState().announce(text);
  };
  return (
    <div className="row">
      <button onClick={() => void run()} disabled={busy || waiting.length === 0} data-testid="connect-all">
        {busy ? 'Connecting…' : `Connect all (${waiting.length})`}
      </button>
      <span className="hint">
        {waiting.length
          ? `Connects ${waiting.map((t) => t.name).join(', ')}: the installed tools that point nowhere yet. Each can be undone.`
          : 'Every installed tool is connected or set up by hand.'}
      </span>
      {said && (
        <p className="ok" data-testid="connect-all-result">
          {said}
        </p>
      )}
    </div>
  );
}

export function ConnectPage() {
  const store = useAppStore();
  const overview = useApp((s) => s.connect);
  const error = useApp((s) => s.connectError);
  useEffect(() => void store.getState().loadConnect(), [store]);
  const tools = overview?.tools ?? [];
  return (
    <section data-testid="page-connect">
      <h2>Connect</h2>
      <ErrorLine message={error} alert testId="connect-error" />
      <h3>Base URLs</h3>
      <p className="hint">
        Point any tool at these. The key can be anything in local mode; <span className="mono">app:&lt;name&gt;</span>{' '}
        names the app for app rules and usage.
      </p>
      <div className="formats">
        {FORMATS.map((f) => (
          <FormatCard key={f} format={f} />
        ))}
      </div>
      <TryIt />
      <h3>Tools</h3>
      <ConnectAll tools={tools} />
      <div className="tools">
        {tools.map((t) => (
          <ToolCard key={t.id} tool={t} />
        ))}
      </div>
    </section>
  );
}
