// The dispatch queue: bounded, with a fixed number of workers. Submissions past 80 % of capacity are refused by
// the API (429 queue_full); the queue itself refuses only when completely full.
export class DispatchQueue<T> {
  private readonly waiting: T[] = [];
  private active = 0;

  constructor(
    private capacity: number,
    private workers: number,
    private readonly work: (item: T) => Promise<void>,
  ) {}

  configure(capacity: number, workers: number): void {
    this.capacity = capacity;
    this.workers = workers;
    this.pump();
  }

  /** Waiting items (not yet picked up by a worker). */
  get depth(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active;
  }

  /** True when a submission must be refused: the waiting line is at 80 % of capacity or more. */
  get saturated(): boolean {
    return this.waiting.length >= 0.8 * this.capacity;
  }

  /** Adds an item; a free worker takes it in this same call. Returns false when the queue is full. */
  push(item: T): boolean {
    if (this.waiting.length >= this.capacity) return false;
    this.waiting.push(item);
    this.pump();
    return true;
  }

  /** Removes a waiting item (a stopped task); false when a worker already has it. */
  remove(match: (item: T) => boolean): boolean {
    const i = this.waiting.findIndex(match);
    if (i === -1) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  private pump(): void {
    while (this.active < this.workers && this.waiting.length > 0) {
      const item = this.waiting.shift() as T;
      this.active++;
      void this.work(item).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }
}
