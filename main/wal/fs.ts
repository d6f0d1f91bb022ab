// The file-system calls the log makes, behind one interface so tests can inject disk faults and crashes.
import fsp, { type FileHandle } from 'node:fs/promises';

/** An open file. `write` writes every byte or throws. */
export interface WalFile {
  readonly path: string;
  write(data: Uint8Array, position: number): Promise<void>;
  read(into: Uint8Array, position: number): Promise<number>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
}

/** read: existing file, read-only; update: existing file, read-write; create: create or empty it; create-new: fail if it exists. */
export type OpenMode = 'read' | 'update' | 'create' | 'create-new';

export interface WalFs {
  mkdirp(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  open(path: string, mode: OpenMode): Promise<WalFile>;
  readFile(path: string): Promise<Buffer>;
  rename(from: string, to: string): Promise<void>;
  /** Hard link: keeps a second name for the same bytes (used to keep a damaged segment aside atomically). */
  link(existing: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** fsync of a folder, so that created, renamed and removed names are durable. */
  syncDir(dir: string): Promise<void>;
}

const FLAGS: Record<OpenMode, string> = { read: 'r', update: 'r+', create: 'w+', 'create-new': 'wx+' };

class NodeFile implements WalFile {
  constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  async write(data: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await this.handle.write(data, done, data.length - done, position + done);
      done += bytesWritten;
    }
  }

  async read(into: Uint8Array, position: number): Promise<number> {
    const { bytesRead } = await this.handle.read(into, 0, into.length, position);
    return bytesRead;
  }

  datasync(): Promise<void> {
    return this.handle.datasync();
  }

  sync(): Promise<void> {
    return this.handle.sync();
  }

  truncate(length: number): Promise<void> {
    return this.handle.truncate(length);
  }

  async size(): Promise<number> {
    return (await this.handle.stat()).size;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The real file system (node:fs/promises). */
export const nodeFs: WalFs = {
  async mkdirp(dir) {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  },
  readdir: (dir) => fsp.readdir(dir),
  async open(path, mode) {
    return new NodeFile(path, await fsp.open(path, FLAGS[mode], 0o600));
  },
  readFile: (path) => fsp.readFile(path),
  rename: (from, to) => fsp.rename(from, to),
  link: (existing, newPath) => fsp.link(existing, newPath),
  unlink: (path) => fsp.unlink(path),
  async syncDir(dir) {
    if (process.platform === 'win32') return; // folders cannot be opened for fsync there
    const handle = await fsp.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};
