// The log drawer's captured bodies (docs/insight.md, "Request capture"): the request as pretty JSON, the answer as its text
// and tool calls (a stream reassembled) with the raw reply, Copy as curl; and Replay (docs/insight.md, "Replay and compare"):
// the request sent again to one to three provider/model pairs at once, each answer beside the original's with a word
// diff of the two texts, its tokens, status and latency.
import { useEffect, useState } from 'react';
import type { LogBody, ReplayResponse } from '../../shared/insight.ts';
import { failureText } from '../store/config.ts';
import { useApp, useAppStore } from '../store/react.ts';
import { CopyButton } from './CopyButton.tsx';
import { ErrorLine, Form, Select } from './controls.tsx';
import { curlOf, prettyJson, wordDiff } from './insight-text.ts';

type Target = { provider: string; model: string };
const TARGETS_SHOWN = 3;

function Answer({ text, calls }: { text: string; calls: { name: string; arguments: string }[] }) {
  return (
    <>
      <pre className="mono small wrap">{text || '(no text)'}</pre>
      {calls.map((c, i) => (
        <div key={i} className="small mono">
          tool call <strong>{c.name}</strong> {c.arguments}
        </div>
      ))}
    </>
  );
}

export function CaptureView({ id }: { id: string }) {
  const store = useAppStore();
  const providers = useApp((s) => s.status?.providers ?? []);
  const port = useApp((s) => s.status?.listen_port ?? 11434);
  const [body, setBody] = useState<LogBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [targets, setTargets] = useState<Target[]>(() =>
    Array.from({ length: TARGETS_SHOWN }, () => ({ provider: '', model: '' })),
  );
  const [replays, setReplays] = useState<ReplayResponse | null>(null);
  const [replaying, setReplaying] = useState(false);

  useEffect(() => {
    setBody(null);
    setReplays(null);
    setError(null);
  }, [id]);

  const load = async () => {
    const r = await store.getState().loadLogBody(id);
    if (r.ok) setBody(r.data);
    else setError(failureText(r.failure).join(' '));
  };
  const replay = async () => {
    const chosen = targets.filter((t) => t.provider && t.model);
    if (chosen.length === 0) return setError('Choose a provider and a model to replay to.');
    setReplaying(true);
    setError(null);
    const r = await store.getState().replay({ log_id: id, targets: chosen });
    setReplaying(false);
    if (r.ok) setReplays(r.data);
    else setError(failureText(r.failure).join(' '));
  };
  const names = providers.filter((p) => p.enabled).map((p) => p.name);

  if (!body)
    return (
      <div data-testid="capture">
        <button onClick={() => void load()} data-testid="capture-load">
          Show the bodies
        </button>
        <ErrorLine message={error} testId="capture-error" />
      </div>
    );
  return (
    <div data-testid="capture">
      <h4>Request</h4>
      <CopyButton text={curlOf(body, `http://127.0.0.1:${port}`)} label="Copy as curl" testId="capture-curl" />{' '}
      <span className="small">as curl</span>
      <pre className="mono small scroll" data-testid="capture-request">
        {prettyJson(body.request.body)}
      </pre>
      {body.request.truncated && <p className="small">Cut at 8 MB.</p>}
      <h4>Answer ({body.response.status})</h4>
      <div data-testid="capture-answer">
        <Answer text={body.answer.text} calls={body.answer.tool_calls} />
      </div>
      <details>
        <summary>The reply as sent</summary>
        <pre className="mono small scroll">{body.stream ? body.response.body : prettyJson(body.response.body)}</pre>
      </details>
      <h4>Replay</h4>
      <Form onSubmit={() => void replay()} aria-label="Replay to other models">
        {targets.map((t, i) => (
          <div className="row" key={i}>
            <Select
              aria-label={`Provider ${i + 1}`}
              blank="provider"
              options={names}
              value={t.provider}
              data-testid={`replay-provider-${i}`}
              onChange={(e) => setTargets(targets.map((x, k) => (k === i ? { ...x, provider: e.target.value } : x)))}
            />
            <input
              aria-label={`Model ${i + 1}`}
              placeholder="model"
              value={t.model}
              data-testid={`replay-model-${i}`}
              onChange={(e) => setTargets(targets.map((x, k) => (k === i ? { ...x, model: e.target.value } : x)))}
            />
          </div>
        ))}
        <button type="submit" disabled={replaying} data-testid="replay-run">
          {replaying ? 'Replaying…' : 'Replay'}
        </button>
      </Form>
      <ErrorLine message={error} testId="capture-error" />
      {replays && (
        <div className="compare" data-testid="replay-results">
          <div className="card">
            <h5>
              Original: {replays.original.provider ?? '—'} / {replays.original.model ?? '—'}
            </h5>
            <Answer text={replays.original.text} calls={replays.original.tool_calls} />
          </div>
          {replays.replays.map((r) => (
            <div className="card" key={r.log_id} data-testid="replay-result">
              <h5>
                {r.provider} / {r.model}: {r.status}, {r.latency_ms} ms, {r.prompt_tokens ?? '—'} in /{' '}
                {r.completion_tokens ?? '—'} out
              </h5>
              <Answer text={r.text} calls={r.tool_calls} />
              <div className="small" data-testid="replay-diff" aria-label="Differences from the original">
                {wordDiff(replays.original.text, r.text).map((p, i) =>
                  p.kind === 'same' ? (
                    <span key={i}>{p.text}</span>
                  ) : p.kind === 'removed' ? (
                    <del key={i}>{p.text}</del>
                  ) : (
                    <ins key={i}>{p.text}</ins>
                  ),
                )}
              </div>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
