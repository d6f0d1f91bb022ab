// The config pages' shared part: config.json as the server wrote it (with the provider names for selects), a save
// that changes a copy, validates and sends it, and keeps its problems (next to the page's fields, the rest for
// <Problems>), and the unsaved-changes mark of a page.
import { useEffect, useState } from 'react';
import {
  type ConfigInput,
  type ConfigProblem,
  configWarnings,
  parseConfig,
  problemToText,
} from '../../shared/config.ts';
import { type FieldRule, fieldErrors, savedText } from '../components/field-errors.ts';
import { useApp, useAppStore } from '../store/react.ts';

/** The stored config document, its config (empty until loaded) and the names of its providers. */
export function useConfig() {
  const doc = useApp((s) => s.configDoc);
  const cfg = (doc?.config ?? {}) as ConfigInput;
  const providerNames = (cfg.providers ?? []).map((p) => p.name);
  return { doc, cfg, providerNames };
}

type Failed = { problems: ConfigProblem[]; messages: string[] };

/**
 * `save(change)`: applies `change` to a copy of the stored config and saves it; answers whether it was saved, and
 * announces the outcome (the window's one live region) in the words `saved` keeps for the page to show: what was saved
 * (`subject`: "Routing", "App rules", "Settings") and the warnings, if any. After a failed save, the problems `fields` map are in
 * `fieldErrors` (by field key, in words) and the rest in `problems` (for <Problems>); `revalidate(change)`, called as
 * the page's edits change, checks them again with the shared schema, so an error goes as soon as its value is fixed;
 * `clear()` forgets them (Cancel).
 */
export function useConfigSave(fields: readonly FieldRule[] = [], subject = 'Settings') {
  const store = useAppStore();
  const [failed, setFailed] = useState<Failed | null>(null);
  const [saved, setSaved] = useState<{ text: string; warned: boolean } | null>(null);
  const split = fieldErrors(failed?.problems ?? [], fields);
  const marked = Object.keys(split.fields).length;
  const problems: string[] | null = !failed
    ? null
    : failed.problems.length === 0
      ? failed.messages
      : [
          ...split.rest.map(problemToText),
          ...(marked > 0 ? [`Fix the ${marked === 1 ? 'field' : `${marked} fields`} marked in red.`] : []),
        ];

  const save = async (change: (next: ConfigInput) => void): Promise<boolean> => {
    const s = store.getState();
    const next = s.currentConfig();
    change(next);
    setSaved(null);
    const r = await s.saveConfig(next);
    if (r.ok) {
      setFailed(null);
      const text = savedText(subject, r.warnings, next, r.teamNote);
      setSaved({ text, warned: r.warnings.length > 0 });
      s.announce(text);
      return true;
    }
    setFailed({ problems: r.problems, messages: r.messages });
    const onFields = r.problems.length - fieldErrors(r.problems, fields).rest.length;
    s.announce(`Not saved. ${onFields > 0 ? 'Fix the fields marked in red.' : r.messages.join(' ')}`);
    return false;
  };

  /** After a failed save: the problems of the edits now on screen (none: the error panels go). */
  const revalidate = (change: (next: ConfigInput) => void) => {
    if (!failed) return;
    const next = store.getState().currentConfig();
    change(next);
    const r = parseConfig(next);
    setFailed(r.ok ? null : { problems: r.problems, messages: r.problems.map(problemToText) });
  };

  return {
    problems,
    /** The last successful save in words (the same as announced), null before one or after a failure. */
    saved,
    fieldErrors: split.fields,
    failed: failed !== null,
    setProblems: (messages: string[] | null) => setFailed(messages ? { problems: [], messages } : null),
    clear: () => setFailed(null),
    revalidate,
    save,
  };
}

/**
 * Marks page `page` as holding unsaved edits while `dirty` (the nav's mark, the guard on leaving it or closing the
 * window); the mark goes when the page does.
 */
export function useUnsaved(page: string, dirty: boolean): void {
  const store = useAppStore();
  useEffect(() => {
    store.getState().setDirty(page, dirty);
  }, [store, page, dirty]);
  useEffect(() => () => store.getState().setDirty(page, false), [store, page]);
}

/** The problems of a config, by the shared schema (none when valid), and what it does that is likely not meant. */
export function checkConfig(next: ConfigInput): { problems: ConfigProblem[]; warnings: ConfigProblem[] } {
  const r = parseConfig(next);
  return r.ok ? { problems: [], warnings: configWarnings(r.config) } : { problems: r.problems, warnings: [] };
}
