// YAML (Continue's config.yaml, Aider's .aider.conf.yml): yaml's Document API keeps comments, key order and blank
// lines when a value is set or a list item added; it may normalise spacing inside a line it re-prints (two spaces
// before a `#` comment become one). The caller re-parses what it writes.
import { type Document, isMap, parseDocument } from 'yaml';
import { ParseProblem } from './problem.ts';

/** The file as a YAML document; a ParseProblem (line, column, what) when it is not YAML or holds several documents. */
export function parseYamlDoc(text: string): Document {
  const doc = parseDocument(text, { keepSourceTokens: false });
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0] ?? { line: 1, col: 1 };
    throw new ParseProblem(err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), pos.line, pos.col);
  }
  if (doc.contents !== null && !isMap(doc.contents))
    throw new ParseProblem('the file is not a YAML mapping (key: value lines)', 1, 1);
  return doc;
}
