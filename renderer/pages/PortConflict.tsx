// Shown instead of the app when listen_port was taken at start: who holds it, and the two fixes.
import type { PortConflictInfo } from '../../shared/ipc.ts';

export function PortConflictPage({ conflict }: { conflict: PortConflictInfo }) {
  const port = conflict.suggested_port ?? '<a free port>';
  return (
    <section className="card" data-testid="page-port-conflict">
      <h2>Port {conflict.port} is taken</h2>
      <p>{conflict.message}</p>
      <h3>Fix 1: use another port</h3>
      <p>
        Set <code>"listen_port": {port}</code> in <code>{conflict.config_path}</code> and point your tools at
        http://localhost:
        {port}/v1.
      </p>
      {conflict.ollama && (
        <>
          <h3>Fix 2: move Ollama and add it as a provider</h3>
          <p>
            Start Ollama with <code>OLLAMA_HOST=127.0.0.1:{port}</code>, then add a provider of type <code>ollama</code>{' '}
            with base URL http://127.0.0.1:{port}, and restart Switchboard so it can take {conflict.port}.
          </p>
        </>
      )}
    </section>
  );
}
