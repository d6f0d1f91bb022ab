import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_LENGTH, sessionOf } from './session-id.ts';

describe('sessionOf', () => {
  it("reads each tool's header: Claude Code's, Codex's session_id, OpenCode's, and the generic ones", () => {
    expect(sessionOf({ 'x-claude-code-session-id': 'a1b2' })).toBe('a1b2');
    expect(sessionOf({ session_id: '0199a7c4-codex' })).toBe('0199a7c4-codex');
    expect(sessionOf({ 'x-session-affinity': 'ses_abc' })).toBe('ses_abc');
    expect(sessionOf({ 'x-opencode-session': 'ses_def' })).toBe('ses_def');
    expect(sessionOf({ 'x-session-id': 'generic' })).toBe('generic');
    expect(sessionOf({ conversation_id: 'old-codex' })).toBe('old-codex');
    expect(sessionOf({ 'user-agent': 'curl/8' })).toBeNull();
  });

  it("takes the first header present, in the documented order (Claude Code's before Codex's)", () => {
    expect(sessionOf({ session_id: 'second', 'x-claude-code-session-id': 'first' })).toBe('first');
    expect(sessionOf({ 'x-session-id': 'later', 'x-session-affinity': 'earlier' })).toBe('earlier');
  });

  it('trims, cuts an id to 128 characters, and skips empty or non-printable values', () => {
    expect(sessionOf({ session_id: '  padded  ' })).toBe('padded');
    expect(sessionOf({ session_id: 'x'.repeat(300) })).toBe('x'.repeat(MAX_SESSION_ID_LENGTH));
    expect(sessionOf({ 'x-claude-code-session-id': '   ', session_id: 'next' })).toBe('next');
    expect(sessionOf({ session_id: 'caf\u00e9' })).toBeNull();
    expect(sessionOf({ session_id: ['one', 'two'] as unknown as string })).toBe('one');
  });
});
