// FaultyFs: a WalFs wrapper that injects errno faults (disk full, EIO) and simulated crashes at a chosen call.
import { nodeFs, type OpenMode, type WalFile, type WalFs } from '../../../main/wal/fs.ts';

export type FsOp =
  | 'mkdirp'
  | 'readdir'
  | 'open'
  | 'readFile'
  | 'rename'
  | 'link'
  | 'unlink'
  | 'syncDir'
  | 'write'
  | 'read'
  | 'datasync'
  | 'sync'
  | 'truncate'
  | 'size'
  | 'close';

export interface FaultRule {
  op: FsOp | readonly FsOp[];
  /** errno code of the thrown error, e.g. 'ENOSPC' or 'EIO'. */
  code: string;
  /** Only calls whose path contains this string (or matches this pattern). */
  path?: string | RegExp;
  /** How many matching calls fail; default: every one until clear(). */
  times?: number;
  /** For write: write this many bytes first (a short write), then throw. */
  partialBytes?: number;
}

/** Thrown by every call once the simulated process has "died". */
export class SimulatedCrash extends Error {
  constructor(op: FsOp, path: string) {
    super(`simulated crash before ${op} ${path}`);
    this.name = 'SimulatedCrash';
  }
}

export function errnoError(code: string, op: FsOp, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault, ${op} '${path}'`), { code, syscall: op, path });
}

interface ActiveRule extends FaultRule {
  remaining: number;
}

export class FaultyFs implements WalFs {
  /** Every call made, in order (also the calls that failed). */
  readonly calls: { op: FsOp; path: string }[] = [];
  private rules: ActiveRule[] = [];
  private crashAtCall: number | null = null;
  private readonly openFiles = new Set<WalFile>();

  constructor(private readonly base: WalFs = nodeFs) {}

  /** Makes matching calls fail with an errno error. */
  fail(rule: FaultRule): void {
    this.rules.push({ ...rule, remaining: rule.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every fault rule: the "disk" is healthy again. */
  clear(): void {
    this.rules = [];
  }

  /** The n-th call from now (1 = the next one) and every later call throw SimulatedCrash. */
  crashAfter(n: number): void {
    this.crashAtCall = this.calls.length + n;
  }

  get crashed(): boolean {
    return this.crashAtCall !== null && this.calls.length >= this.crashAtCall;
  }

  /** What the OS does when a process dies: closes the files it left open. */
  async releaseAll(): Promise<void> {
    const files = [...this.openFiles];
    this.openFiles.clear();
    await Promise.all(files.map((f) => f.close().catch(() => {})));
  }

  /** Records the call; throws if a crash or a fault applies; returns a partial-write rule to apply. */
  private gate(op: FsOp, path: string): ActiveRule | null {
    this.calls.push({ op, path });
    if (this.crashAtCall !== null && this.calls.length >= this.crashAtCall) throw new SimulatedCrash(op, path);
    for (const rule of this.rules) {
      const ops: readonly FsOp[] = typeof rule.op === 'string' ? [rule.op] : rule.op;
      if (!ops.includes(op) || rule.remaining <= 0) continue;
      if (rule.path !== undefined) {
        const hit = typeof rule.path === 'string' ? path.includes(rule.path) : rule.path.test(path);
        if (!hit) continue;
      }
      rule.remaining -= 1;
      if (op === 'write' && rule.partialBytes) return rule;
      throw errnoError(rule.code, op, path);
    }
    return null;
  }

  async mkdirp(dir: string): Promise<void> {
    this.gate('mkdirp', dir);
    return this.base.mkdirp(dir);
  }

  async readdir(dir: string): Promise<string[]> {
    this.gate('readdir', dir);
    return this.base.readdir(dir);
  }

  async readFile(path: string): Promise<Buffer> {
    this.gate('readFile', path);
    return this.base.readFile(path);
  }

  async rename(from: string, to: string): Promise<void> {
    this.gate('rename', from);
    return this.base.rename(from, to);
  }

  async link(existing: string, newPath: string): Promise<void> {
    this.gate('link', existing);
    return this.base.link(existing, newPath);
  }

  async unlink(path: string): Promise<void> {
    this.gate('unlink', path);
    return this.base.unlink(path);
  }

  async syncDir(dir: string): Promise<void> {
    this.gate('syncDir', dir);
    return this.base.syncDir(dir);
  }

  async open(path: string, mode: OpenMode): Promise<WalFile> {
    this.gate('open', path);
    const file = await this.base.open(path, mode);
    this.openFiles.add(file);
    const gate = (op: FsOp) => this.gate(op, path);
    const forget = () => this.openFiles.delete(file);
    return {
      path,
      async write(data, position) {
        const partial = gate('write');
        if (partial) {
          await file.write(data.subarray(0, Math.min(partial.partialBytes ?? 0, data.length)), position);
          throw errnoError(partial.code, 'write', path);
        }
        return file.write(data, position);
      },
      async read(into, position) {
        gate('read');
        return file.read(into, position);
      },
      async datasync() {
        gate('datasync');
        return file.datasync();
      },
      async sync() {
        gate('sync');
        return file.sync();
      },
      async truncate(length) {
        gate('truncate');
        return file.truncate(length);
      },
      async size() {
        gate('size');
        return file.size();
      },
      async close() {
        gate('close');
        forget();
        return file.close();
      },
    };
  }
}
