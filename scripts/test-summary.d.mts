export type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: { name?: string; status?: string; message?: string; assertionResults?: { status?: string }[] }[];
};
export function summarize(
  report: VitestReport | null,
  run: {
    tscFailed: boolean;
    unformatted?: boolean;
    vitestStatus: number;
    projects?: Record<string, { passed: number; failed: number; skipped: number }> | null;
    setupFailures?: string[];
  },
): { line: string; notes: string[]; code: number };
export function asShipped(
  projects: Record<string, { passed: number; failed: number; skipped: number }> | null | undefined,
  runnerMajor?: string,
): string | null;
