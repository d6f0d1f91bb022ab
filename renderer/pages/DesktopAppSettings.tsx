// Settings' "Desktop app" section, shown in the desktop window only: the auto-update switch (download / check only /
// off), kept by the desktop shell in its own store (electron-store, not config.json) and applied at once, and start on
// login as the system reports it (macOS 13+ approval, Windows' Startup apps, the desktop's autostart). In the browser
// the shell's calls answer desktop_only and the section is not shown.
import { useEffect, useState } from 'react';
import { AUTO_UPDATE_MODES, type AutoUpdateMode, type DesktopSettings } from '../../shared/desktop.ts';
import { ErrorLine } from '../components/controls.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useApp } from '../store/react.ts';

/** What each choice does, in words. */
export const AUTO_UPDATE_LABELS: Record<AutoUpdateMode, string> = {
  download: 'Download updates in the background, then offer to restart',
  check: 'Only check for updates, and say when one is available',
  off: 'Off: check only when I ask (tray › Check for updates)',
};

export function DesktopAppSettings() {
  const api = useApi();
  const startOnLogin = useApp((s) => (s.configDoc?.config as { start_on_login?: boolean } | undefined)?.start_on_login);
  const [settings, setSettings] = useState<DesktopSettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  // Read again when start_on_login changes (the login item follows it).
  useEffect(() => {
    let live = true;
    void api.getDesktopSettings().then((r) => {
      if (!live) return;
      if (r.ok) setSettings(r.data);
      else if (r.failure.error.code !== 'desktop_only') setError(failureText(r.failure).join(' '));
    });
    return () => {
      live = false;
    };
  }, [api, startOnLogin]);

  if (!settings) return error ? <ErrorLine message={error} alert testId="desktop-settings-error" /> : null;

  const choose = async (mode: AutoUpdateMode) => {
    setSaved(null);
    const r = await api.setAutoUpdate({ mode });
    if (!r.ok) return setError(failureText(r.failure).join(' '));
    setError(null);
    setSettings(r.data);
    setSaved(`Updates: ${AUTO_UPDATE_LABELS[r.data.auto_update].split(':')[0]!.toLowerCase()}.`);
  };

  return (
    <div data-testid="desktop-settings">
      <h3>Desktop app</h3>
      <fieldset>
        <legend>Updates</legend>
        {AUTO_UPDATE_MODES.map((mode) => (
          <label key={mode} className="row">
            <input
              type="radio"
              name="auto-update"
              value={mode}
              checked={settings.auto_update === mode}
              onChange={() => void choose(mode)}
              data-testid={`auto-update-${mode}`}
            />{' '}
            {AUTO_UPDATE_LABELS[mode]}
          </label>
        ))}
      </fieldset>
      {!settings.updates_supported && (
        <p className="hint" data-testid="updates-not-here">
          This copy does not update itself (it was not installed from an installer); the choice applies once it is.
        </p>
      )}
      <p role="status" className="ok" data-testid="auto-update-saved">
        {saved}
      </p>
      <ErrorLine message={error} alert testId="desktop-settings-error" />
      {settings.login_item && (
        <p
          className={settings.login_item.wanted && settings.login_item.state !== 'enabled' ? 'error' : 'hint'}
          data-testid="login-item"
        >
          {settings.login_item.message}
        </p>
      )}
    </div>
  );
}
