// Test support: the WAL's file system with a gate on fdatasync, so a test can hold records between their write and
// their being durable (between holdSyncs() and releaseSyncs() every fsync waits).
import { nodeFs, type OpenMode, type WalFile, type WalFs } from '../../../main/wal/index.ts';

/** The log's file system with a gate on fdatasync: between holdSyncs() and releaseSyncs() every fsync waits. */
export class GatedFs implements WalFs {
  private gate: Promise<void> | null = null;
  private openGate: () => void = () => {};
  /** fsyncs waiting at the gate now. */
  waiting = 0;
  holdSyncs(): void {
    this.gate = new Promise((r) => (this.openGate = r));
  }
  releaseSyncs(): void {
    this.gate = null;
    this.openGate();
  }
  mkdirp = (dir: string) => nodeFs.mkdirp(dir);
  readdir = (dir: string) => nodeFs.readdir(dir);
  readFile = (p: string) => nodeFs.readFile(p);
  rename = (a: string, b: string) => nodeFs.rename(a, b);
  link = (a: string, b: string) => nodeFs.link(a, b);
  unlink = (p: string) => nodeFs.unlink(p);
  syncDir = (dir: string) => nodeFs.syncDir(dir);
  async open(p: string, mode: OpenMode): Promise<WalFile> {
    const file = await nodeFs.open(p, mode);
    const datasync = async () => {
      while (this.gate) {
        this.waiting++;
        await this.gate;
        this.waiting--;
      }
      return file.datasync();
    };
    return new Proxy(file, { get: (f, k) => (k === 'datasync' ? datasync : Reflect.get(f, k)) });
  }
}
