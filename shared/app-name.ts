// The bare, case-folded application name that per-app routing rules are matched against.

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
