// Words for issue 38's views: a word diff of two answers (the replay view), a request as a curl command (the log
// drawer), and the attribution's shares in sentences (the Usage page).
import type { AttributionSplit, LogBody } from '../../shared/insight.ts';

export type DiffPart = { kind: 'same' | 'removed' | 'added'; text: string };

/** The most words each side is diffed over (an LCS table is words × words); past it the rest is one change. */
export const DIFF_WORDS_MAX = 1500;

/** A word diff of `a` (the original) to `b` (a replay): runs of same, removed and added words, spaces kept. */
export function wordDiff(a: string, b: string): DiffPart[] {
  const wa = a.split(/(\s+)/).filter((w) => w !== '');
  const wb = b.split(/(\s+)/).filter((w) => w !== '');
  const restA = wa.splice(DIFF_WORDS_MAX);
  const restB = wb.splice(DIFF_WORDS_MAX);
  const n = wa.length;
  const m = wb.length;
  const lcs: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = wa[i] === wb[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    const last = out.at(-1);
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (wa[i] === wb[j]) {
      push('same', wa[i]!);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) push('removed', wa[i++]!);
    else push('added', wb[j++]!);
  }
  while (i < n) push('removed', wa[i++]!);
  while (j < m) push('added', wb[j++]!);
  if (restA.length) push('removed', restA.join(''));
  if (restB.length) push('added', restB.join(''));
  return out;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The captured request as a curl command against `origin` (no credential: none was kept; local mode needs none). */
export function curlOf(body: LogBody, origin: string): string {
  const lines = [`curl ${shellQuote(origin + body.path)}`, `  -X ${body.method}`];
  for (const [k, v] of Object.entries(body.request.headers)) {
    if (['host', 'content-length', 'connection', 'accept-encoding'].includes(k)) continue;
    lines.push(`  -H ${shellQuote(`${k}: ${v}`)}`);
  }
  lines.push(`  --data-binary ${shellQuote(body.request.body)}`);
  return lines.join(' \\\n');
}

/** A request body as indented JSON (as it was when it is not JSON). */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const percent = (part: number, whole: number): string =>
  whole <= 0 ? '0%' : `${Math.round((part / whole) * 1000) / 10}%`;

/** Rows of a name → tokens table, largest first. */
export function topRows(
  table: Record<string, number>,
  whole: number,
): { name: string; tokens: number; share: string }[] {
  return Object.entries(table)
    .sort((x, y) => y[1] - x[1])
    .map(([name, tokens]) => ({ name, tokens, share: percent(tokens, whole) }));
}

/** The sentence of the costliest MCP server: "The GitHub MCP server's tool definitions are 18% of this input." */
export function costliestServerText(split: AttributionSplit, scope: string): string | null {
  const [top] = topRows(split.mcp_servers, split.input_tokens);
  if (!top) return null;
  return `The ${top.name} MCP server's tool definitions are ${top.share} of ${scope}'s input.`;
}
