export type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: { name?: string; status?: string; message?: string; assertionResults?: { status?: string }[] }[];
};
export function summarize(
  report: VitestReport | null,
  run: { tscFailed: boolean; unformatted?: boolean; vitestStatus: number },
): { line: string; notes: string[]; code: number };
