// .env files (Gemini CLI's ~/.gemini/.env), read as the dotenv package reads them (KEY=value lines, `export ` allowed,
// '…', "…" or `…` quotes, # comments; the last line of a key wins) and changed by replacing that one line or
// appending a line, so every other byte stays.
import { eolOf } from './problem.ts';

const LINE = /^[ \t]*(?:export[ \t]+)?([\w.-]+)[ \t]*=[ \t]*(.*?)[ \t]*\r?$/;

/** The value of one `KEY=value` line's right-hand side. */
function valueOf(raw: string): string {
  const q = raw[0];
  if ((q === '"' || q === "'" || q === '`') && raw.indexOf(q, 1) > 0) {
    const inner = raw.slice(1, raw.indexOf(q, 1));
    return q === '"' ? inner.replace(/\\n/g, '\n').replace(/\\r/g, '\r') : inner;
  }
  const hash = raw.search(/[ \t]#/);
  return (hash >= 0 ? raw.slice(0, hash) : raw).trim();
}

/** Every key of the file and its value (the last line of a key wins, as in dotenv). */
export function parseDotenv(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m) out.set(m[1]!, valueOf(m[2]!));
  }
  return out;
}

/** A value as a dotenv line writes it: bare when it has no space, quote or #, else in double quotes. */
const quoted = (v: string): string => (/^[^\s'"`#\\]*$/.test(v) ? v : JSON.stringify(v));

/** The text with each key set: the last line that defines it replaced, or a line appended. */
export function setDotenv(text: string, values: [key: string, value: string][]): string {
  const eol = eolOf(text);
  const lines = text.split('\n');
  for (const [key, value] of values) {
    let idx = -1;
    lines.forEach((line, i) => {
      if (LINE.exec(line)?.[1] === key) idx = i;
    });
    const cr = eol === '\r\n' ? '\r' : '';
    if (idx >= 0) {
      const exported = /^[ \t]*export[ \t]/.test(lines[idx]!) ? 'export ' : '';
      lines[idx] = `${exported}${key}=${quoted(value)}${lines[idx]!.endsWith('\r') ? '\r' : ''}`;
    } else {
      if (lines.length === 1 && lines[0] === '') lines.pop();
      else if (lines[lines.length - 1] !== '') lines[lines.length - 1] += cr;
      else lines.pop();
      lines.push(`${key}=${quoted(value)}${cr}`, '');
    }
  }
  return lines.join('\n');
}
