// The record the crash-test child writes for an id, so the parent can check it came back intact.
export interface CrashPayload {
  id: number;
  text: string;
}

export function payloadFor(id: number): CrashPayload {
  return { id, text: `record-${id}-${'x'.repeat(id % 97)}` };
}

/** Messages from the child to the parent. */
export type ChildMessage = { kind: 'ready' } | { kind: 'ack'; ids: number[]; lastSeq: number };
