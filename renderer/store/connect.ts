// Connect slice: the base URLs and each tool's state, Connect and Undo (a tool that points elsewhere is replaced only
// after the user confirmed what will be replaced), and the Try it box's one message through the current routes.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { ConnectOverview, ConnectToolId, ToolStatus, TryRequest, TryResult } from '../../shared/connect.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import { failureText } from './config.ts';

/** What a Connect or Undo came to, for the tool's card. */
export type ConnectOutcome =
  | { kind: 'done'; message: string }
  /** The tool points elsewhere and the user said no: nothing was written. */
  | { kind: 'kept'; message: string }
  /** Undo was refused: the file changed since Connect wrote it. The card offers Undo anyway. */
  | { kind: 'changed'; message: string }
  | { kind: 'error'; message: string };

/** Asks the user a question (window.confirm in the page); true goes ahead. */
export type Confirm = (question: string) => boolean;

/** The question asked before a tool that points elsewhere is pointed here: what is replaced, by what, and the way back. */
export function replaceQuestion(tool: ToolStatus, detail?: string): string {
  const where = tool.current ? ` at ${tool.current}` : '';
  const files = tool.files.map((f) => f.path).join(', ');
  const writes = tool.values.length ? ` with ${tool.values.map((v) => `${v.label} = ${v.value}`).join(', ')}` : '';
  const notes = [tool.detail, detail].filter((d, i, all): d is string => !!d && all.indexOf(d) === i);
  return [
    `${tool.name} points elsewhere${where}.`,
    ...notes,
    `Connect will replace that${files ? ` in ${files}` : ''}${writes}.`,
    'The file as it is now is kept as a backup: Undo puts it back byte for byte.',
  ].join('\n');
}

/** Why Undo stopped, without the CLI's instructions: the file changed since, what Undo anyway does. */
export function changedText(tool: ToolStatus | undefined, serverMessage: string): string {
  const why = serverMessage.replace(/ Nothing was changed\.$/, '');
  return (
    `${why}. Nothing was changed. Undo anyway puts back the file as it was before Connect; the file as it is now is ` +
    `kept beside Connect's backup first${tool ? ` (in connect/${tool.id}/ beside config.json)` : ''}.`
  );
}

/** The question before Undo anyway. */
export function undoAnywayQuestion(tool: ToolStatus): string {
  const file = tool.files[0]?.path ?? "the tool's settings file";
  return [
    `${file} changed since Connect wrote it.`,
    'Undo anyway puts it back exactly as it was before Connect, so those changes go from it.',
    'The file as it is now is kept first, so nothing is lost.',
  ].join('\n');
}

export type ConnectSlice = {
  connect: ConnectOverview | null;
  connectError: string | null;
  /** The latest outcome per tool. */
  connectOutcomes: Partial<Record<ConnectToolId, ConnectOutcome>>;
  loadConnect: () => Promise<void>;
  /** Connects a tool; one that points elsewhere is replaced only when `confirm` says yes. */
  connectTool: (id: ConnectToolId, confirm: Confirm) => Promise<ConnectOutcome>;
  /** Undoes a Connect; `force` after the user confirmed undoing over changes made since (the file is kept first). */
  undoConnect: (id: ConnectToolId, force?: boolean) => Promise<ConnectOutcome>;
  tryMessage: (req: TryRequest) => Promise<{ ok: true; result: TryResult } | { ok: false; message: string }>;
};

export const createConnectSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], ConnectSlice> =>
  (set, get) => {
    const done = (id: ConnectToolId, outcome: ConnectOutcome, tool?: ToolStatus): ConnectOutcome => {
      const now = get().connect;
      set({
        connectOutcomes: { ...get().connectOutcomes, [id]: outcome },
        ...(tool && now ? { connect: { ...now, tools: now.tools.map((t) => (t.id === id ? tool : t)) } } : {}),
      });
      return outcome;
    };
    const send = async (id: ConnectToolId, force: boolean) => {
      const r = await api.connectTool(force ? { tool: id, force: true } : { tool: id });
      if (r.ok) return { result: done(id, { kind: 'done', message: r.data.message }, r.data.tool), conflict: null };
      if (r.failure.status === 409 && !force) return { result: null, conflict: r.failure };
      return { result: done(id, { kind: 'error', message: failureText(r.failure).join(' ') }), conflict: null };
    };
    return {
      connect: null,
      connectError: null,
      connectOutcomes: {},
      loadConnect: async () => {
        const r = await api.getConnect();
        if (r.ok) set({ connect: r.data, connectError: null });
        else set({ connectError: failureText(r.failure).join(' ') });
      },
      connectTool: async (id, confirm) => {
        const tool = get().connect?.tools.find((t) => t.id === id);
        // Known to point elsewhere: ask first, then force. Else try; a 409 (it changed since) asks then.
        if (tool?.state === 'elsewhere') {
          if (!confirm(replaceQuestion(tool)))
            return done(id, { kind: 'kept', message: `${tool.name} was left as it was.` });
          return (await send(id, true)).result!;
        }
        const first = await send(id, false);
        if (first.result) return first.result;
        await get().loadConnect();
        const fresh = get().connect?.tools.find((t) => t.id === id) ?? tool;
        const question = fresh
          ? replaceQuestion(fresh, first.conflict!.error.message)
          : `${first.conflict!.error.message}\nReplace it?`;
        if (!confirm(question))
          return done(id, { kind: 'kept', message: `${fresh?.name ?? id} was left as it was.` }, fresh);
        return (await send(id, true)).result!;
      },
      undoConnect: async (id, force) => {
        const r = await api.undoConnect(force ? { tool: id, force: true } : { tool: id });
        if (r.ok) return done(id, { kind: 'done', message: r.data.message }, r.data.tool);
        // Changed since Connect wrote it: said in the UI's words, with Undo anyway on the card (not a CLI command).
        if (r.failure.status === 409 && !force) {
          const tool = get().connect?.tools.find((t) => t.id === id);
          return done(id, { kind: 'changed', message: changedText(tool, r.failure.error.message) });
        }
        return done(id, { kind: 'error', message: failureText(r.failure).join(' ') });
      },
      tryMessage: async (req) => {
        const r = await api.tryMessage(req);
        return r.ok ? { ok: true, result: r.data } : { ok: false, message: failureText(r.failure).join(' ') };
      },
    };
  };
