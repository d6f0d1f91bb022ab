// The one store: slices combined; created outside React so pushed events feed it with setState.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import { type AgentsSlice, createAgentsSlice } from './agents.ts';
import { type ConfigSlice, createConfigSlice } from './config.ts';
import { type ConnectSlice, createConnectSlice } from './connect.ts';
import { type LogsSlice, createLogsSlice } from './logs.ts';
import { type UiSlice, createUiSlice } from './ui.ts';
import { type PresetsSlice, createPresetsSlice } from './presets.ts';
import { type AlertsSlice, createAlertsSlice } from './alerts.ts';
import { type UsageSlice, createUsageSlice } from './usage.ts';
import { type WorkflowsSlice, createWorkflowsSlice } from './workflows.ts';
import { type InsightSlice, createInsightSlice } from './insight.ts';

export type AppState = LogsSlice &
  ConfigSlice &
  AgentsSlice &
  WorkflowsSlice &
  UsageSlice &
  ConnectSlice &
  UiSlice &
  PresetsSlice &
  AlertsSlice &
  InsightSlice;

export function createAppStore(api: SwitchboardApi): StoreApi<AppState> {
  return createStore<AppState>()((...a) => ({
    ...createLogsSlice(...a),
    ...createConfigSlice(api)(...a),
    ...createAgentsSlice(api)(...a),
    ...createWorkflowsSlice(api)(...a),
    ...createUsageSlice(api)(...a),
    ...createConnectSlice(api)(...a),
    ...createUiSlice(...a),
    ...createPresetsSlice(api)(...a),
    ...createAlertsSlice(api)(...a),
    ...createInsightSlice(api)(...a),
  }));
}
