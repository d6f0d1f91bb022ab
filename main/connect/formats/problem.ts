// A settings file that does not parse: where (line and column, 1-based) and why. Connect refuses to touch it.

export class ParseProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'ParseProblem';
  }
}

/** The 1-based line and column of a character offset. */
export function lineColOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** The line ending a file already uses (CRLF when its first line ends so), for the lines Connect adds. */
export const eolOf = (text: string): string => (/\r\n/.test(text.split('\n', 1)[0] + '\n') ? '\r\n' : '\n');
