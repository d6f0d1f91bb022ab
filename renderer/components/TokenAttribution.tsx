// The Usage page's "Where the tokens went" (README, same heading): for a coding session (or an app, or every captured
// request), the input tokens split into system prompt, tool definitions, tool results, conversation and the rest, the
// tools and MCP servers that cost the most, and the session's timeline of requests. Read from captured requests
// (GET /admin/v1/usage/attribution), so it needs capture on.
import { useState } from 'react';
import type { AttributionResponse } from '../../shared/insight.ts';
import { formatCount } from '../../shared/usage-text.ts';
import { failureText } from '../store/config.ts';
import { useAppStore } from '../store/react.ts';
import { ErrorLine, Form, Select, Table } from './controls.tsx';
import { costliestServerText, percent, topRows } from './insight-text.ts';

const PARTS = [
  ['system', 'system prompt'],
  ['tool_definitions', 'tool definitions'],
  ['tool_results', 'tool results'],
  ['conversation', 'conversation'],
  ['other', 'the rest (JSON, parameters)'],
] as const;

function Bar({ share }: { share: number }) {
  return <span className="share-bar" style={{ width: `${Math.max(1, Math.round(share * 200))}px` }} aria-hidden />;
}

export function TokenAttribution({ sessions }: { sessions: string[] }) {
  const store = useAppStore();
  const [session, setSession] = useState('');
  const [data, setData] = useState<AttributionResponse | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    const r = await store.getState().loadAttribution(session ? { session } : {});
    if (r.ok) {
      setData(r.data);
      setError(null);
    } else setError(failureText(r.failure).join(' '));
  };
  const total = data?.total;
  const scope = session ? 'this session' : 'the captured requests';
  const server = total ? costliestServerText(total, scope) : null;

  return (
    <div className="card" data-testid="attribution">
      <h3>Where the tokens went</h3>
      <p className="hint">
        Input tokens of captured requests, by part (needs request capture on: config.json{' '}
        <code>
          &quot;capture&quot;: {'{'}&quot;enabled&quot;: true{'}'}
        </code>
        ).
      </p>
      <Form onSubmit={() => void load()} className="row" aria-label="Attribution scope">
        <Select
          aria-label="Session"
          blank="every captured request"
          options={sessions}
          value={session}
          onChange={(e) => setSession(e.target.value)}
          data-testid="attribution-session"
        />
        <button type="submit" data-testid="attribution-load">
          Show
        </button>
      </Form>
      <ErrorLine message={error} testId="attribution-error" />
      {data && total && data.requests.length === 0 && <p data-testid="attribution-none">No captured requests.</p>}
      {data && total && data.requests.length > 0 && (
        <>
          <p data-testid="attribution-total">
            {formatCount(total.input_tokens)} input tokens in {data.requests.length} request
            {data.requests.length === 1 ? '' : 's'}
            {total.exact ? ' (as the providers counted them)' : ' (estimated)'}.
          </p>
          {server && <p data-testid="attribution-server-sentence">{server}</p>}
          <Table head={['part', 'tokens', 'share', '']}>
            {PARTS.map(([k, label]) => (
              <tr key={k} data-testid={`attribution-part-${k}`}>
                <td>{label}</td>
                <td>{formatCount(total[k])}</td>
                <td>{percent(total[k], total.input_tokens)}</td>
                <td>
                  <Bar share={total.input_tokens ? total[k] / total.input_tokens : 0} />
                </td>
              </tr>
            ))}
          </Table>
          <div className="groups">
            <div>
              <h4>MCP servers (tool definitions)</h4>
              <Table head={['server', 'tokens', 'share']}>
                {topRows(total.mcp_servers, total.input_tokens).map((r) => (
                  <tr key={r.name} data-testid="attribution-server">
                    <td>{r.name}</td>
                    <td>{formatCount(r.tokens)}</td>
                    <td>{r.share}</td>
                  </tr>
                ))}
              </Table>
            </div>
            <div>
              <h4>Tools (definitions)</h4>
              <Table head={['tool', 'tokens', 'share']}>
                {topRows(total.tools, total.input_tokens)
                  .slice(0, 10)
                  .map((r) => (
                    <tr key={r.name} data-testid="attribution-tool">
                      <td className="mono">{r.name}</td>
                      <td>{formatCount(r.tokens)}</td>
                      <td>{r.share}</td>
                    </tr>
                  ))}
              </Table>
            </div>
            <div>
              <h4>Tool results</h4>
              <Table head={['tool', 'tokens', 'share']}>
                {topRows(total.results, total.input_tokens).map((r) => (
                  <tr key={r.name} data-testid="attribution-result">
                    <td className="mono">{r.name}</td>
                    <td>{formatCount(r.tokens)}</td>
                    <td>{r.share}</td>
                  </tr>
                ))}
              </Table>
            </div>
          </div>
          <h4>Timeline</h4>
          <Table head={['time', 'model', 'input', 'tool definitions', 'tool results', 'conversation']}>
            {data.requests.map((r) => (
              <tr key={r.id} data-testid="attribution-request">
                <td>{new Date(r.time).toLocaleTimeString()}</td>
                <td className="mono">{r.model ?? '—'}</td>
                <td>{formatCount(r.split.input_tokens)}</td>
                <td>{percent(r.split.tool_definitions, r.split.input_tokens)}</td>
                <td>{percent(r.split.tool_results, r.split.input_tokens)}</td>
                <td>{percent(r.split.conversation, r.split.input_tokens)}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </div>
  );
}
