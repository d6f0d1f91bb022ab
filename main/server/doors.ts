// The front doors: each client wire format, its route, and when a provider can take its bytes unchanged.
import { openaiFormat } from '../proxy/formats/openai.ts';
import type { FrontDoor } from './front-door.ts';

export const openaiChatDoor: FrontDoor = {
  format: openaiFormat,
  path: '/v1/chat/completions',
  nativePath: ({ kind }, model, stream) => (kind.format === 'openai' ? kind.chatPath(model, stream) : null),
  modelInBody: true,
};
