// Shown instead of the app when the desktop app could not start because config.json is invalid (issue 15, bug 10):
// each problem in words, where the file is, and what happens once it is fixed.
import type { ConfigProblemsInfo } from '../../shared/ipc.ts';

export function ConfigProblemsPage({ info }: { info: ConfigProblemsInfo }) {
  return (
    <section className="card" data-testid="page-config-problems">
      <h2>config.json has problems</h2>
      <p>{info.message}</p>
      {info.problems.length > 0 && (
        <ul>
          {info.problems.map((p) => (
            <li key={p} data-testid="config-problem">
              {p}
            </li>
          ))}
        </ul>
      )}
      <p>
        The file: <code>{info.config_path}</code>
      </p>
    </section>
  );
}
