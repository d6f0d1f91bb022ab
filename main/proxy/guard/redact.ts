// Redaction: each secret found in a request body replaced by a stable placeholder, and the table to put the values
// back. A placeholder names the rule and 8 hex digits of an HMAC of the value under a key made at start: the same
// secret gets the same placeholder in every request of this run (a conversation's earlier turns, sent again with each
// request, stay byte for byte what the provider saw, so its prompt cache still holds), and the placeholder tells
// nothing of the value.
import { createHmac, randomBytes } from 'node:crypto';
import type { Finding } from './scan.ts';

const KEY = randomBytes(32);

/** Every placeholder: `[REDACTED_<RULE>_<8 hex>]` (only characters JSON never escapes). */
export const PLACEHOLDER = /\[REDACTED_[A-Z0-9_]+?_[0-9a-f]{8}\]/g;
export const PLACEHOLDER_START = '[REDACTED_';
/** The longest placeholder a rule id makes (a longer run after `[REDACTED_` is not one being written). */
export const PLACEHOLDER_MAX = 64;

export function placeholderOf(rule: string, value: string): string {
  const mac = createHmac('sha256', KEY).update(value).digest('hex').slice(0, 8);
  return `[REDACTED_${rule.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${mac}]`;
}

/** A secret's text as the JSON string held it, decoded (a private key's `\n` escapes become newlines). */
function decoded(body: Buffer, f: Finding): string {
  const raw = body.toString('utf8', f.start, f.end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

export type Redaction = {
  body: Buffer;
  /** Placeholder → the secret's value (decoded). */
  table: Map<string, string>;
};

/** The body with every finding replaced by its placeholder (findings in body order, disjoint: scan.ts). */
export function redactBody(body: Buffer, findings: readonly Finding[]): Redaction {
  const table = new Map<string, string>();
  const parts: Buffer[] = [];
  let at = 0;
  for (const f of findings) {
    const value = decoded(body, f);
    const ph = placeholderOf(f.rule, value);
    table.set(ph, value);
    parts.push(body.subarray(at, f.start), Buffer.from(ph, 'latin1'));
    at = f.end;
  }
  parts.push(body.subarray(at));
  return { body: Buffer.concat(parts), table };
}
