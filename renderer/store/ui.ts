// UI slice: what the window itself keeps: the one live region's announcement (saves, test results), and which pages
// hold unsaved edits (the unsaved-changes marks and the guard on leaving a page or closing the window).
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';

export type UiSlice = {
  /** The live region's text; `seq` changes with every announcement so the same words are read again. */
  announcement: { text: string; seq: number };
  /** Pages (by their nav id) with edits not saved yet. */
  dirtyPages: Record<string, boolean>;
  announce: (text: string) => void;
  setDirty: (page: string, dirty: boolean) => void;
};

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set, get) => ({
  announcement: { text: '', seq: 0 },
  dirtyPages: {},
  announce: (text) => set({ announcement: { text, seq: get().announcement.seq + 1 } }),
  setDirty: (page, dirty) => {
    if ((get().dirtyPages[page] ?? false) === dirty) return;
    set({ dirtyPages: { ...get().dirtyPages, [page]: dirty } });
  },
});

/** The pages with unsaved edits, in nav order of the ids given. */
export function dirtyList(dirty: Record<string, boolean>): string[] {
  return Object.keys(dirty).filter((k) => dirty[k]);
}
