// The Agents area: its own sub-navigation (hash routes #/agents, #/agents/tasks[/<task_id>], #/agents/workflows,
// #/agents/swarms, #/agents/wal), the banner saying when the agent API cannot be read (gone as soon as it answers
// again), and the sub-page. The lists are read every 2 s while the area is shown.
import { useEffect, useRef, useState } from 'react';
import { ErrorLine } from '../components/controls.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import { AgentList } from './agents/AgentList.tsx';
import { PendingApprovals } from './agents/Approvals.tsx';
import { RunView } from './agents/RunView.tsx';
import { TaskList } from './agents/Tasks.tsx';
import { WalPage } from './agents/Wal.tsx';
import { SwarmsSection, WorkflowsSection } from './Workflows.tsx';

export const AGENT_SUBPAGES = {
  '': 'Agents',
  tasks: 'Tasks',
  workflows: 'Workflows',
  swarms: 'Swarms',
  /** The write-ahead log's status, explained (its hash stays #/agents/wal). */
  wal: 'Advanced',
} as const;
export type AgentSubpage = keyof typeof AGENT_SUBPAGES;

/** `#/agents/tasks/tsk_1` → { sub: 'tasks', id: 'tsk_1' }; anything unknown is the agents list. */
export function agentsRoute(hash: string): { sub: AgentSubpage; id: string | null } {
  const [, sub = '', id] = hash.replace(/^#\/?/, '').split('/');
  if (!(sub in AGENT_SUBPAGES)) return { sub: '', id: null };
  return { sub: sub as AgentSubpage, id: sub === 'tasks' && id ? decodeURIComponent(id) : null };
}

export function AgentsPage() {
  const store = useAppStore();
  const error = useApp((s) => s.agentsError);
  const [route, setRoute] = useState(() => agentsRoute(window.location.hash));
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);

  useEffect(() => {
    const onHash = () => setRoute(agentsRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    void store.getState().refreshAgents();
    const t = setInterval(() => void store.getState().refreshAgents(), 2000);
    return () => clearInterval(t);
  }, [store]);
  // Moving between sub-pages moves the focus to the sub-page's heading (not on the area's first showing).
  useEffect(() => {
    if (first.current) first.current = false;
    else heading.current?.focus();
  }, [route.sub, route.id]);

  const title = route.id
    ? "A task's run"
    : route.sub === 'wal'
      ? "Advanced: where the agents' state is kept"
      : AGENT_SUBPAGES[route.sub];
  return (
    <section className="agents-area" data-testid="page-agents" aria-labelledby="agents-heading">
      <h2 id="agents-heading">Agents</h2>
      <nav className="subnav" aria-label="Agents area">
        {Object.entries(AGENT_SUBPAGES).map(([id, label]) => (
          <a
            key={id}
            href={id ? `#/agents/${id}` : '#/agents'}
            aria-current={route.sub === id ? 'page' : undefined}
            data-testid={`agents-nav-${id || 'agents'}`}
          >
            {label}
          </a>
        ))}
      </nav>
      <ErrorLine message={error} alert testId="agents-error" />
      <PendingApprovals />
      <h3 ref={heading} tabIndex={-1} className="subpage-heading" data-testid="agents-subpage-heading">
        {title}
      </h3>
      {route.sub === '' && <AgentList />}
      {route.sub === 'tasks' && (route.id ? <RunView key={route.id} taskId={route.id} /> : <TaskList />)}
      {route.sub === 'workflows' && <WorkflowsSection />}
      {route.sub === 'swarms' && <SwarmsSection />}
      {route.sub === 'wal' && <WalPage />}
    </section>
  );
}
