// Threads: conversations with one agent. Every client run belongs to one (a run without thread_id starts a new one);
// a completed run's messages (the user's, the model's answers, tool calls and results) are appended to its history
// in the run's end record (executor.ts), and the next run of the thread gets that history before its own message.
import type { Task, Thread } from '../../shared/orchestrator.ts';
import { ApiError } from '../errors.ts';
import { threadId } from './ids.ts';
import type { OrchestratorStore } from './store.ts';

/** A thread in a list: everything but the messages, and how many there are. */
export type ThreadSummary = Omit<Thread, 'messages'> & { message_count: number };

export class ThreadService {
  constructor(
    private readonly store: OrchestratorStore,
    /** The thread's queued or running task (the task service answers). */
    private readonly activeTaskOf: (threadId: string) => Task | undefined,
  ) {}

  get(id: string, tenant: string): Thread {
    const t = this.store.threads.get(id);
    if (!t || t.tenant !== tenant) {
      const action = 'List threads with GET /api/v1/threads, or leave out thread_id to start a new one.';
      throw new ApiError('thread_not_found', `No thread "${id}".`, action);
    }
    return t;
  }

  /** A new, empty thread of the agent (made durable with the run that starts it). */
  create(agentId: string, tenant: string, time: string): Thread {
    return {
      id: threadId(),
      agent_id: agentId,
      tenant,
      messages: [],
      turns: 0,
      last_task_id: null,
      created_at: time,
      updated_at: time,
    };
  }

  /** The tenant's threads (of one agent when given), the latest changed first. */
  list(tenant: string, agentId: string | undefined, limit: number, offset: number) {
    const all = [...this.store.threads.values()]
      .filter((t) => t.tenant === tenant && (!agentId || t.agent_id === agentId))
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.created_at.localeCompare(a.created_at));
    const data: ThreadSummary[] = all.slice(offset, offset + limit).map(({ messages, ...rest }) => ({
      ...rest,
      message_count: messages.length,
    }));
    return { data, total: all.length, limit, offset };
  }

  /** Deletes a thread and its history (its tasks stay); 409 thread_busy while one of its tasks is queued or running. */
  async delete(id: string, tenant: string): Promise<void> {
    this.get(id, tenant);
    const active = this.activeTaskOf(id);
    if (active) {
      throw new ApiError(
        'thread_busy',
        `Thread "${id}" has a ${active.status} task (${active.task_id}) and cannot be deleted.`,
        `Wait for task ${active.task_id} to end, or stop it (POST /api/v1/tasks/${active.task_id}/stop), then retry.`,
        { thread_id: id, task_id: active.task_id },
      );
    }
    await this.store.commit({ type: 'thread.deleted', data: { id } });
  }
}
