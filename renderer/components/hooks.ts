// Form state the pages share: a draft object bound to its inputs, one text per row of a list, and an action's
// outcome (null, or the problems in words) kept for <Problems>.
import { type ChangeEvent, useState } from 'react';

type TextKey<T> = { [K in keyof T]-?: T[K] extends string ? K : never }[keyof T];
type FlagKey<T> = { [K in keyof T]-?: T[K] extends boolean ? K : never }[keyof T];
type TextChange = ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>;

/** A draft object: `text(key)` and `flag(key)` bind an input, select or textarea (or a checkbox) to one field. */
export function useDraft<T extends object>(empty: T) {
  const [draft, setDraft] = useState<T>(empty);
  return {
    draft,
    setDraft,
    reset: () => setDraft(empty),
    text: (key: TextKey<T>) => ({
      value: draft[key] as string,
      onChange: (e: TextChange) => setDraft((d) => ({ ...d, [key]: e.target.value })),
    }),
    flag: (key: FlagKey<T>) => ({
      checked: draft[key] as boolean,
      onChange: (e: ChangeEvent<HTMLInputElement>) => setDraft((d) => ({ ...d, [key]: e.target.checked })),
    }),
  };
}

/** One text per row (an agent's message, a workflow's input): `get(key)`, and `text(key)` to bind an input. */
export function useTextPerRow() {
  const [texts, setTexts] = useState<Record<string, string>>({});
  return {
    get: (key: string) => texts[key] ?? '',
    text: (key: string) => ({
      value: texts[key] ?? '',
      onChange: (e: TextChange) => setTexts((t) => ({ ...t, [key]: e.target.value })),
    }),
  };
}

/** What an action answers: null on success, else the problems in words. */
export type Outcome = string[] | null;

/**
 * The problems of the last action, for <Problems>. `run(action, onOk)` awaits the action, shows its problems (or
 * clears them), calls `onOk` when it succeeded, and answers whether it did.
 */
export function useOutcome() {
  const [problems, setProblems] = useState<Outcome>(null);
  const run = async (action: Promise<Outcome>, onOk?: () => void): Promise<boolean> => {
    const p = await action;
    setProblems(p);
    if (!p) onOk?.();
    return !p;
  };
  return { problems, setProblems, run };
}
