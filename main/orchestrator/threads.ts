// Threads: conversations with one agent. Every client run belongs to one (a run without thread_id starts a new one);
// a completed run's messages (the user's, the model's answers, tool calls and results) are appended to its history
// in the run's end record (executor.ts), and the next run of the thread gets that history before its own message.
import type { Task, Thread } from '../../shared/orchestrator.ts';
import { ApiError } from '../errors.ts';
import { threadId } from './ids.ts';
import { ClaimRefused, type OrchestratorStore } from './store/types.ts';

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

  /** GET /threads/:id: the thread with its messages, and how many there are (as the list says). */
  shown(id: string, tenant: string): Thread & { message_count: number } {
    const t = this.get(id, tenant);
    return { ...t, message_count: t.messages.length };
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
    const busy = (active: Task | undefined, taskId: string) =>
      new ApiError(
        'thread_busy',
        `Thread "${id}" has a ${active?.status ?? 'queued'} task (${taskId}) and cannot be deleted.`,
        `Wait for task ${taskId} to end, or stop it (POST /api/v1/tasks/${taskId}/stop), then retry.`,
        { thread_id: id, task_id: taskId },
      );
    const active = this.activeTaskOf(id);
    if (active) throw busy(active, active.task_id);
    try {
      // task_id "": only checked (no task of the thread queued or running), not taken.
      const idle = { kind: 'thread_idle', tenant, thread_id: id, task_id: '' } as const;
      await this.store.commitWith({ claims: [idle] }, { type: 'thread.deleted', data: { id } });
    } catch (err) {
      if (!(err instanceof ClaimRefused)) throw err;
      const holder = err.holder ?? '';
      throw busy(this.store.tasks.get(holder), holder);
    }
  }
}
