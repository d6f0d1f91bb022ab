// Presets slice: the local inference services found running (Ollama, LM Studio, llama.cpp, vLLM), read when the
// gallery shows (GET /admin/v1/providers/detect), and the outcome of the last provider added from a preset (its test,
// then the first request sent through it).
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import type { DetectResult } from '../../shared/presets.ts';

export type PresetsSlice = {
  detected: DetectResult | null;
  detecting: boolean;
  detectLocal: () => Promise<void>;
};

export const createPresetsSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], PresetsSlice> =>
  (set, get) => ({
    detected: null,
    detecting: false,
    detectLocal: async () => {
      if (get().detecting) return;
      set({ detecting: true });
      const r = await api.detectProviders();
      set({ detecting: false, ...(r.ok ? { detected: r.data } : {}) });
    },
  });
