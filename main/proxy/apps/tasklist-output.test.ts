import { describe, expect, it } from 'vitest';
import { imageNameOfPid } from './tasklist-output.ts';

// `tasklist /FI "PID eq <pid>" /FO CSV /NH` on Windows 11 (CRLF, a leading blank line, memory with a comma).
describe('imageNameOfPid', () => {
  it('reads the image name of the matching pid', () => {
    expect(imageNameOfPid('\r\n"Code.exe","20932","Console","1","145,236 K"\r\n', 20932)).toBe('Code.exe');
  });

  it('handles quoted commas and doubled quotes in names', () => {
    const text = '"My, ""Quoted"" App.exe","4242","Console","1","12,000 K"\r\n';
    expect(imageNameOfPid(text, 4242)).toBe('My, "Quoted" App.exe');
  });

  it('ignores rows for other pids and a header line', () => {
    const text = '"Image Name","PID","Session Name","Session#","Mem Usage"\r\n"System","4","Services","0","144 K"\r\n';
    expect(imageNameOfPid(text, 4)).toBe('System');
    expect(imageNameOfPid(text, 5)).toBeNull();
  });

  it('returns null for "no tasks" and empty output', () => {
    expect(imageNameOfPid('INFO: No tasks are running which match the specified criteria.\r\n', 20932)).toBeNull();
    expect(imageNameOfPid('', 1)).toBeNull();
  });
});
