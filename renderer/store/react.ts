// React access to the store and the data client: one context, selector hooks.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import type { AppState } from './index.ts';

export const StoreContext = createContext<{ store: StoreApi<AppState>; api: SwitchboardApi } | null>(null);

function useCtx() {
  const ctx = useContext(StoreContext);
  if (!ctx) throw new Error('StoreContext missing');
  return ctx;
}

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useCtx().store, selector);
}
export const useApi = (): SwitchboardApi => useCtx().api;
export const useAppStore = (): StoreApi<AppState> => useCtx().store;
