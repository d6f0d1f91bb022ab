// The desktop notification of a tool call waiting for approval (issue 16): its own switch, notifications.approvals.
import { describe, expect, it } from 'vitest';
import { notificationWanted } from './notifier.ts';

describe('approval notifications', () => {
  it('are shown by default, and not when notifications.approvals (or enabled) is false', () => {
    expect(notificationWanted({ kind: 'approval_required' }, undefined)).toBe(true);
    expect(notificationWanted({ kind: 'approval_required' }, { approvals: false })).toBe(false);
    expect(notificationWanted({ kind: 'approval_required' }, { enabled: false })).toBe(false);
    expect(notificationWanted({ kind: 'budget_warning' }, { approvals: false })).toBe(true);
  });
});
