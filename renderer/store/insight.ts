// Request capture, replay and attribution (issue 38): the log drawer's bodies and replays, the Usage page's "where
// the tokens went". Nothing kept in the store: the components hold what they asked for (one drawer, one panel).
import type { StateCreator } from 'zustand';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';
import type {
  AttributionQuery,
  AttributionResponse,
  LogBody,
  ReplayRequest,
  ReplayResponse,
} from '../../shared/insight.ts';
import type { AppState } from './index.ts';

export type InsightSlice = {
  loadLogBody: (id: string) => Promise<ApiResult<LogBody>>;
  replay: (req: ReplayRequest) => Promise<ApiResult<ReplayResponse>>;
  loadAttribution: (q: AttributionQuery) => Promise<ApiResult<AttributionResponse>>;
};

export const createInsightSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], InsightSlice> =>
  () => ({
    loadLogBody: (id) => api.getLogBody({ id }),
    replay: (req) => api.replay(req),
    loadAttribution: (q) => api.getAttribution(q),
  });
