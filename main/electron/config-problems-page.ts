// What the window shows when config.json cannot be read at start (bug 10): its problems in words and where the file
// is, as data (renderer/pages/ConfigProblems.tsx shows it). The shell watches the file and starts once it is valid.
import { problemToText, type ConfigProblem } from '../../shared/config.ts';
import type { ConfigProblemsInfo } from '../../shared/ipc.ts';

export function configProblemsInfo(file: string, problems: ConfigProblem[]): ConfigProblemsInfo {
  const n = problems.length;
  return {
    config_path: file,
    problems: problems.map(problemToText),
    message:
      `Switchboard did not start: ${file} has ${n === 1 ? 'a problem' : `${n} problems`}. Fix ` +
      `${n === 1 ? 'it' : 'them'} in the file and save it: Switchboard starts as soon as the file is valid. Or put ` +
      'back an earlier version with `switchboard config restore latest` (the file is never overwritten meanwhile).',
  };
}
