// Which provider created each video task, so status and content polls go back to it: an append-only JSON-lines
// file beside config.json (0600), fsynced before the create reply is sent, loaded on first use after a restart.
// Store kind "redis": each task is also written to the shared store (task id → provider, kept VIDEO_TASK_TTL_MS), so a
// poll through any instance finds it; this instance's file still answers first.
import fs from 'node:fs';
import type { VideoAffinity } from '../store/types.ts';

/** How long the shared store remembers a task's provider (vendors keep a task's video for a day or a few). */
export const VIDEO_TASK_TTL_MS = 7 * 86_400_000;

/**
 * A task, the provider that created it and, for vendor B's tasks (any path under /vendorb/), the path it was created
 * at as the client sent it: its polls are that path and the id, nothing else (issue 33, item 9).
 */
export type VideoTask = { task_id: string; provider: string; created_at: string; path?: string };

export class VideoTaskStore {
  private tasks: Map<string, VideoTask> | null = null;
  private shared: VideoAffinity | null = null;

  constructor(readonly file: string) {}

  /** Store kind "redis": tasks are shared through it as well. */
  share(affinity: VideoAffinity): void {
    this.shared = affinity;
  }

  /** The task, from this instance's file, else (shared store) from the task created through another instance. */
  async lookup(taskId: string): Promise<VideoTask | undefined> {
    const local = this.get(taskId);
    if (local || !this.shared) return local;
    const shared = await this.shared.get(taskId).catch(() => null);
    if (!shared) return undefined;
    // "provider" or "provider\npath" (provider names hold no newline).
    const nl = shared.indexOf('\n');
    return nl === -1
      ? { task_id: taskId, provider: shared, created_at: '' }
      : { task_id: taskId, provider: shared.slice(0, nl), created_at: '', path: shared.slice(nl + 1) };
  }

  private load(): Map<string, VideoTask> {
    if (this.tasks) return this.tasks;
    const tasks = new Map<string, VideoTask>();
    let text = '';
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const t = JSON.parse(line) as VideoTask;
        if (typeof t.task_id === 'string' && typeof t.provider === 'string')
          tasks.set(t.task_id, {
            task_id: t.task_id,
            provider: t.provider,
            created_at: String(t.created_at ?? ''),
            ...(typeof t.path === 'string' ? { path: t.path } : {}),
          });
      } catch {
        // a torn last line (crash mid-append) is skipped
      }
    }
    this.tasks = tasks;
    return tasks;
  }

  get(taskId: string): VideoTask | undefined {
    return this.load().get(taskId);
  }

  /** Records a task durably (append + fsync) before its id reaches the client. */
  remember(taskId: string, provider: string, path?: string): void {
    const task: VideoTask = {
      task_id: taskId,
      provider,
      created_at: new Date().toISOString(),
      ...(path !== undefined ? { path } : {}),
    };
    const fd = fs.openSync(this.file, 'a', 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(task)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.load().set(taskId, task);
    // Sent before the create reply is written: a poll through another instance comes after it.
    const value = path !== undefined ? `${provider}\n${path}` : provider;
    this.shared?.remember(taskId, value, VIDEO_TASK_TTL_MS).catch(() => {});
  }
}

/** The task id in a create reply, whichever vendor shape it has. */
export function taskIdOf(body: unknown): string | null {
  const b = body as { id?: unknown; task_id?: unknown; data?: { task_id?: unknown; id?: unknown } } | null;
  const id = b?.task_id ?? b?.data?.task_id ?? b?.id ?? b?.data?.id;
  return typeof id === 'string' && id !== '' ? id : typeof id === 'number' ? String(id) : null;
}
