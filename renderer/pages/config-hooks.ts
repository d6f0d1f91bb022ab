// The config pages' shared part: config.json as the server wrote it (with the provider names for selects), and a
// save that changes a copy, validates and sends it, and keeps its problems for <Problems>.
import type { ConfigInput } from '../../shared/config.ts';
import { useOutcome } from '../components/hooks.ts';
import { useApp, useAppStore } from '../store/react.ts';

/** The stored config document, its config (empty until loaded) and the names of its providers. */
export function useConfig() {
  const doc = useApp((s) => s.configDoc);
  const cfg = (doc?.config ?? {}) as ConfigInput;
  const providerNames = (cfg.providers ?? []).map((p) => p.name);
  return { doc, cfg, providerNames };
}

/** `save(change)`: applies `change` to a copy of the stored config and saves it; answers whether it was saved. */
export function useConfigSave() {
  const store = useAppStore();
  const { problems, setProblems, run } = useOutcome();
  const save = (change: (next: ConfigInput) => void): Promise<boolean> => {
    const next = store.getState().currentConfig();
    change(next);
    return run(
      store
        .getState()
        .saveConfig(next)
        .then((r) => (r.ok ? null : r.messages)),
    );
  };
  return { problems, setProblems, save };
}
