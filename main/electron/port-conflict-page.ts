// What the window shows when listen_port is taken at start: the engine's message plus the fixes, as data.
import type { PortConflictInfo } from '../../shared/ipc.ts';
import { type PortHolder, portConflictMessage } from '../server/port-conflict.ts';

export function portConflictInfo(
  port: number,
  holder: PortHolder,
  configPath: string,
  suggested: number | null,
): PortConflictInfo {
  const names: Record<PortHolder['kind'], string> = {
    ollama: 'Ollama',
    switchboard: 'another Switchboard',
    process: 'a program',
    unknown: 'another program',
  };
  const holderText =
    holder.kind === 'ollama'
      ? `Ollama ${holder.version}`
      : holder.kind === 'process'
        ? `${holder.name} (pid ${holder.pid})`
        : names[holder.kind];
  return {
    port,
    holder: holderText,
    message: portConflictMessage(port, holder, configPath, suggested),
    suggested_port: suggested,
    config_path: configPath,
    ollama: holder.kind === 'ollama',
  };
}
