// Settings' MCP servers (docs/agents.md, "MCP tools"): each server of config.json's mcp_servers with its state and tools
// (Refresh starts it and lists them), Enable (which shows what the server runs and asks first) and Disable, and
// Import: the mcpServers of Claude Desktop, Claude Code and Cursor, or of a file named by path (a project's .mcp.json:
// imported disabled), never overwriting a server of the same name. Read every 5 s while shown.
import { useCallback, useEffect, useState } from 'react';
import type { McpImportRequest, McpImportResult, McpOverview } from '../../shared/mcp.ts';
import { ErrorLine, Select, Table } from '../components/controls.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useAppStore } from '../store/react.ts';

const SOURCE_NAMES: Record<string, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
};
const ALL = 'every tool found';

function importLines(r: McpImportResult): string[] {
  const lines = r.imported.map(
    (i) => `Imported ${i.name} from ${i.from}${i.notes.length ? ` (${i.notes.join('; ')})` : ''}.`,
  );
  for (const s of r.skipped) lines.push(`Skipped ${s.name} from ${s.from}: ${s.reason}.`);
  for (const f of r.read) if (f.error) lines.push(`${f.path} ${f.error}.`);
  if (r.read.length === 0) lines.push('None of the known files was found.');
  if (r.imported.length === 0) lines.push('Nothing was imported; config.json is unchanged.');
  else if (r.backup) lines.push(`The config before the import is kept as backup ${r.backup}.`);
  return lines;
}

export function McpServers() {
  const api = useApi();
  const store = useAppStore();
  const [overview, setOverview] = useState<McpOverview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [source, setSource] = useState(ALL);
  const [result, setResult] = useState<string[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  /** The disabled server whose Enable was pressed: what it runs is shown, and Enable asked again. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const [file, setFile] = useState('');

  const load = useCallback(async () => {
    const r = await api.getMcp();
    if (!r.ok) return setError(failureText(r.failure).join(' '));
    setError(null);
    setOverview(r.data);
  }, [api]);

  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 5000);
    return () => clearInterval(t);
  }, [load]);

  const refresh = async (name: string) => {
    setBusy(name);
    const r = await api.refreshMcp({ name });
    setBusy(null);
    if (!r.ok) setError(failureText(r.failure).join(' '));
    await load();
  };

  const setEnabled = async (name: string, enabled: boolean) => {
    setConfirming(null);
    setBusy(name);
    const r = await api.setMcpEnabled({ name, enabled });
    setBusy(null);
    if (!r.ok) setError(failureText(r.failure).join(' '));
    await load();
    await store.getState().loadConfig();
  };

  const runImport = async (byPath = false) => {
    const from = Object.entries(SOURCE_NAMES).find(([, label]) => label === source)?.[0];
    const req = (byPath ? { path: file.trim() } : from ? { from } : {}) as McpImportRequest;
    setBusy('import');
    const r = await api.importMcp(req);
    setBusy(null);
    if (!r.ok) return setResult(failureText(r.failure));
    setResult(importLines(r.data));
    await load();
    await store.getState().loadConfig(); // the rest of the UI sees the new config.json
  };

  const found = (overview?.sources ?? []).filter((s) => s.exists);
  return (
    <div data-testid="mcp-servers">
      <h3>MCP servers</h3>
      <p className="hint">
        Tools from MCP servers (config.json&apos;s <code className="mono">mcp_servers</code>), offered to agents whose{' '}
        <code className="mono">tools</code> name them as <code className="mono">server.tool</code> or{' '}
        <code className="mono">server.*</code>. A server starts on first use and stops when idle. From a terminal:{' '}
        <code className="mono">switchboard mcp list</code>, <code className="mono">switchboard mcp import</code>.
      </p>
      <ErrorLine message={error} alert testId="mcp-error" />
      {overview && overview.servers.length === 0 && (
        <p data-testid="mcp-none">No MCP servers yet: import them below.</p>
      )}
      {overview && overview.servers.length > 0 && (
        <div className="table-wrap">
          <Table head={['server', 'runs', 'state', 'tools', '']}>
            {overview.servers.map((s) => (
              <tr key={s.name} data-testid={`mcp-server-${s.name}`}>
                <td className="mono">{s.name}</td>
                <td className="small mono" title={s.transport === 'stdio' ? 'a program over stdio' : 'streamable HTTP'}>
                  {s.target}
                </td>
                <td data-testid={`mcp-state-${s.name}`}>
                  {s.state}
                  {s.error && <div className="small bad">{s.error}</div>}
                </td>
                <td data-testid={`mcp-tools-${s.name}`}>
                  {s.tools === null ? (
                    <span className="hint">listed once it has started</span>
                  ) : (
                    <details>
                      <summary>{s.tools.length} tools</summary>
                      <ul className="small">
                        {s.tools.map((t) => (
                          <li key={t.name}>
                            <code className="mono">{t.name}</code>
                            {t.read_only ? ' (reads only)' : ''}
                            {t.description ? `: ${t.description}` : ''}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </td>
                <td>
                  <button
                    disabled={!s.enabled || busy !== null}
                    onClick={() => void refresh(s.name)}
                    aria-label={`Refresh ${s.name} (start it and list its tools)`}
                    data-testid={`mcp-refresh-${s.name}`}
                  >
                    Refresh
                  </button>{' '}
                  {s.enabled ? (
                    <button
                      disabled={busy !== null}
                      onClick={() => void setEnabled(s.name, false)}
                      data-testid={`mcp-disable-${s.name}`}
                    >
                      Disable
                    </button>
                  ) : confirming === s.name ? (
                    <div role="alertdialog" aria-label={`Enable ${s.name}?`} data-testid={`mcp-confirm-${s.name}`}>
                      <p className="small">
                        Enabling <code className="mono">{s.name}</code> lets agents run:{' '}
                        <code className="mono" data-testid={`mcp-launch-${s.name}`}>
                          {s.launch}
                        </code>
                      </p>
                      <button
                        onClick={() => void setEnabled(s.name, true)}
                        data-testid={`mcp-enable-confirm-${s.name}`}
                      >
                        Enable it
                      </button>{' '}
                      <button onClick={() => setConfirming(null)}>Cancel</button>
                    </div>
                  ) : (
                    <button
                      disabled={busy !== null}
                      onClick={() => setConfirming(s.name)}
                      aria-label={`Enable ${s.name} (shows what it runs first)`}
                      data-testid={`mcp-enable-${s.name}`}
                    >
                      Enable…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </div>
      )}
      <h4>Import</h4>
      <p className="hint">
        {found.length
          ? `Found: ${found.map((f) => `${f.path}${f.servers ? ` (${f.servers.join(', ') || 'no servers'})` : ` (${f.error})`}`).join('; ')}.`
          : 'None of the files of Claude Desktop, Claude Code or Cursor was found on this machine.'}{' '}
        A server whose name is taken is never overwritten.
      </p>
      <label>
        From{' '}
        <Select
          value={source}
          onChange={(e) => setSource(e.target.value)}
          options={[ALL, ...Object.values(SOURCE_NAMES)]}
          data-testid="mcp-import-source"
        />
      </label>{' '}
      <button disabled={busy !== null} onClick={() => void runImport()} data-testid="mcp-import">
        Import
      </button>
      <p className="hint">
        A project&apos;s <code className="mono">.mcp.json</code> (or any file) is imported only when named here, and its
        servers are added disabled: a repository can name any program, so check what each runs before enabling it.
      </p>
      <label>
        File{' '}
        <input
          className="mono"
          value={file}
          onChange={(e) => setFile(e.target.value)}
          placeholder="/path/to/project/.mcp.json"
          data-testid="mcp-import-file"
        />
      </label>{' '}
      <button
        disabled={busy !== null || file.trim() === ''}
        onClick={() => void runImport(true)}
        data-testid="mcp-import-file-run"
      >
        Import file
      </button>
      {result && (
        <ul data-testid="mcp-import-result" aria-live="polite">
          {result.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
