// Parses Windows `tasklist /FO CSV /NH` output to get a process's image name by pid (pure).

/** The image name (`Code.exe`) of `pid`, or null (e.g. for "INFO: No tasks are running which match ..."). */
export function imageNameOfPid(text: string, pid: number): string | null {
  for (const line of text.split(/\r?\n/)) {
    const [imageName, pidText] = parseCsvLine(line);
    if (imageName && Number(pidText) === pid) return imageName;
  }
  return null;
}

/** Splits one CSV line; fields may be quoted, with `""` for a quote inside. */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  const field = /\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(,|$)/y;
  let match: RegExpExecArray | null;
  while (field.lastIndex < line.length && (match = field.exec(line)) !== null) {
    fields.push(match[1] !== undefined ? match[1].replaceAll('""', '"') : (match[2] ?? ''));
    if (match[3] === '') break;
  }
  return fields;
}
