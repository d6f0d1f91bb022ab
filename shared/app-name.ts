// The bare, case-folded application name that per-app routing rules are matched against.

/**
 * The longest app name kept: a name a client sends (X-Switchboard-App, X-Title, an app: key, its User-Agent) is cut to
 * this, as the metrics' labels are (issue 33, item 4: 12 KB names were kept whole in the request log and usage).
 */
export const APP_NAME_MAX = 64;

/**
 * `C:\Program Files\Microsoft VS Code\Code.exe` → `code`, `/usr/share/code/code` → `code`,
 * `Visual Studio Code.app` → `visual studio code`, `Cursor Helper` → `cursor helper`.
 */
export function bareAppName(name: string): string {
  const lastSegment =
    name
      .trim()
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? '';
  return lastSegment.replace(/\.(exe|app)$/i, '').toLowerCase();
}
