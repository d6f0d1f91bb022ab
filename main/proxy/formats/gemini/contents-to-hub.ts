// Client side: a Gemini request's `contents` (turns of parts) as hub messages, pairing function responses to calls.
import { argumentsToHub, invalid, isObject, newId } from '../hub/index.ts';
import type { ClientContext, HubContentPart, HubMessage, HubToolCall, Json } from '../hub/index.ts';
import { checkPart } from './fields.ts';

/** A turn's parts (checked), or 400 naming the field. */
export function partsOf(content: unknown, field: string, ctx?: ClientContext): Json[] {
  const parts = isObject(content) ? content.parts : undefined;
  if (!Array.isArray(parts)) {
    throw invalid(
      `${field}.parts must be an array of parts, got ${JSON.stringify(parts ?? null)}.`,
      `Send ${field} as {"role": "user", "parts": [{"text": "…"}]}.`,
    );
  }
  return parts.map((p, j) => {
    if (!isObject(p)) {
      throw invalid(
        `${field}.parts[${j}] must be an object such as {"text": "…"}.`,
        'Send each part as a JSON object.',
      );
    }
    if (p.text !== undefined && typeof p.text !== 'string') {
      throw invalid(`${field}.parts[${j}].text must be a string.`, 'Send text parts as {"text": "…"}.');
    }
    checkPart(p, `${field}.parts[${j}]`, ctx);
    return p;
  });
}

/** A user-side media part as a hub image_url part (the hub's only binary part; its mime type travels in the URL). */
function mediaToHub(p: Json, field: string): HubContentPart | undefined {
  if (isObject(p.inlineData)) {
    const { mimeType, data } = p.inlineData;
    if (typeof mimeType !== 'string' || typeof data !== 'string') {
      throw invalid(
        `${field}.inlineData needs a mimeType and base64 data.`,
        'Send {"inlineData": {"mimeType": "image/png", "data": "<base64>"}}.',
      );
    }
    return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
  }
  if (isObject(p.fileData)) {
    if (typeof p.fileData.fileUri !== 'string') {
      throw invalid(
        `${field}.fileData.fileUri must be a string URL.`,
        'Send {"fileData": {"mimeType": "image/png", "fileUri": "https://…"}}.',
      );
    }
    return { type: 'image_url', image_url: { url: p.fileData.fileUri } };
  }
  return undefined;
}

/** Parts as hub content: one text part is a string, anything else keeps its parts. */
export function partsToHub(parts: HubContentPart[]): string | HubContentPart[] {
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
}

/** A functionResponse.response as tool message text: {"output": "<text>"} reads back as the text. */
function functionResponseToHub(response: unknown): string {
  if (isObject(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1 && keys[0] === 'output' && typeof response.output === 'string') return response.output;
  }
  return JSON.stringify(response ?? {});
}

type PendingCall = { id: string; name: string; answered: boolean };

/** A model turn as an assistant message: text, thoughts (reasoning) and function calls (ids minted if absent). */
function modelTurnToHub(parts: Json[], field: string): Extract<HubMessage, { role: 'assistant' }> {
  let text = '';
  let reasoning = '';
  const calls: HubToolCall[] = [];
  parts.forEach((p, j) => {
    if (isObject(p.functionCall)) {
      const fc = p.functionCall;
      if (typeof fc.name !== 'string' || fc.name === '') {
        throw invalid(
          `${field}.parts[${j}].functionCall.name must be the called function's name.`,
          'Send {"functionCall": {"name": "…", "args": {…}}}.',
        );
      }
      const id = typeof fc.id === 'string' && fc.id !== '' ? fc.id : newId('call_');
      calls.push({ id, type: 'function', function: { name: fc.name, arguments: argumentsToHub(fc.args) } });
    } else if (typeof p.text === 'string') {
      if (p.thought === true) reasoning += p.text;
      else text += p.text;
    }
  });
  const message: Extract<HubMessage, { role: 'assistant' }> = {
    role: 'assistant',
    content: text === '' && calls.length ? null : text,
  };
  if (calls.length) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  return message;
}

/**
 * A user turn: each functionResponse becomes a tool message answering a call of the previous model turn (by id when
 * one matches, else the first unanswered call of that name); text and media become one user message after them.
 */
function userTurnToHub(parts: Json[], field: string, previousCalls: PendingCall[], messages: HubMessage[]): void {
  const userParts: HubContentPart[] = [];
  parts.forEach((p, j) => {
    const partField = `${field}.parts[${j}]`;
    if (isObject(p.functionResponse)) {
      const fr = p.functionResponse;
      if (typeof fr.name !== 'string' || fr.name === '') {
        throw invalid(
          `${partField}.functionResponse.name must name the function that was called.`,
          'Send {"functionResponse": {"name": "…", "response": {…}}}.',
        );
      }
      const byId = typeof fr.id === 'string' ? previousCalls.find((c) => !c.answered && c.id === fr.id) : undefined;
      const call = byId ?? previousCalls.find((c) => !c.answered && c.name === fr.name);
      if (!call) {
        throw invalid(
          `${partField}.functionResponse "${fr.name}" answers no functionCall of that name in the previous model turn.`,
          'Send each functionResponse in the user turn right after the model turn holding its functionCall, ' +
            'with the same name.',
        );
      }
      call.answered = true;
      const content = functionResponseToHub(fr.response);
      messages.push({ role: 'tool', tool_call_id: call.id, content, name: fr.name });
    } else if (typeof p.text === 'string') {
      userParts.push({ type: 'text', text: p.text });
    } else {
      const media = mediaToHub(p, partField);
      if (media) userParts.push(media);
    }
  });
  if (userParts.length) messages.push({ role: 'user', content: partsToHub(userParts) });
}

/** `contents` (already camelized) as hub messages; what they hold that the hub cannot carry is noted on `ctx`. */
export function contentsToHub(contents: unknown[], ctx?: ClientContext): HubMessage[] {
  const messages: HubMessage[] = [];
  let previousCalls: PendingCall[] = [];
  contents.forEach((content, i) => {
    const field = `contents[${i}]`;
    const role = isObject(content) ? (content.role ?? 'user') : undefined;
    const parts = partsOf(content, field, ctx);
    if (role === 'model') {
      const message = modelTurnToHub(parts, field);
      messages.push(message);
      previousCalls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, answered: false }));
      return;
    }
    if (role !== 'user' && role !== 'function' && role !== 'tool') {
      throw invalid(
        `${field}.role must be "user" or "model", got ${JSON.stringify(role)}.`,
        'Use role "user" for your turns and "model" for the model\'s.',
      );
    }
    userTurnToHub(parts, field, previousCalls, messages);
  });
  return messages;
}
