// Provider side: the hub request as a Gemini GenerateContentRequest body (the model goes in the URL: urls.ts).
import { argumentsFromHub, contentText, invalid, isObject, paramsFromHub, parseDataUrl } from '../hub/index.ts';
import type { HubContentPart, HubRequest, Json } from '../hub/index.ts';
import { GEMINI_PARAMS } from './common.ts';
import { structuredOutputFromHub } from './structured-output.ts';
import { thinkingFromHub } from './thinking.ts';
import type { GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequest } from './types.ts';

/** The thought signature Google documents for function calls that did not come from this Gemini model. */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** gemini-1.x and 2.x accept function calls without thought signatures; later models need one. */
function needsThoughtSignature(model: string): boolean {
  return !/^(models\/)?gemini-(1|2)[.-]/i.test(model);
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

function mimeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? MIME_BY_EXTENSION[ext] : undefined;
}

/** A tool result as a functionResponse.response: a JSON object as it is, anything else as {"output": text}. */
function functionResponseFromHub(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { output: text };
}

/** User content as parts: data: URLs inline, other URLs as fileData (with a mime type guessed from the name). */
function userPartsFromHub(content: string | HubContentPart[], field: string): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((p, j): GeminiPart[] => {
    if (p.type === 'text') return p.text === '' ? [] : [{ text: p.text }];
    const url = p.image_url.url;
    const data = parseDataUrl(url);
    if (data) return [{ inlineData: { mimeType: data.mediaType, data: data.data } }];
    if (url.startsWith('data:')) {
      throw invalid(
        `${field}[${j}].image_url.url is a data: URL without base64 data.`,
        'Send images as data:<type>;base64,<data> or as an https URL.',
      );
    }
    const mimeType = mimeFromUrl(url);
    return [{ fileData: mimeType ? { mimeType, fileUri: url } : { fileUri: url } }];
  });
}

/** The messages as turns: system text apart; results named by their calls (Gemini pairs them by name and order). */
function contentsFromHub(req: HubRequest): { contents: GeminiContent[]; system: GeminiPart[] } {
  const contents: GeminiContent[] = [];
  const system: GeminiPart[] = [];
  const callNames = new Map<string, string>();
  const signCalls = needsThoughtSignature(req.model);
  // Gemini wants user and model turns to alternate: consecutive messages of one role share a turn.
  const push = (role: 'user' | 'model', parts: GeminiPart[]): void => {
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  req.messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = contentText(m.content);
        if (text) system.push({ text });
        break;
      }
      case 'user':
        push('user', userPartsFromHub(m.content, `messages[${i}].content`));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = [];
        const text = contentText(m.content);
        if (text) parts.push({ text });
        for (const tc of m.tool_calls ?? []) {
          callNames.set(tc.id, tc.function.name);
          const part: GeminiPart = {
            functionCall: { name: tc.function.name, args: argumentsFromHub(tc.function.arguments) },
          };
          if (signCalls) part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
          parts.push(part);
        }
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = callNames.get(m.tool_call_id) ?? m.name;
        if (!name) {
          throw invalid(
            `messages[${i}].tool_call_id "${m.tool_call_id}" matches no tool call of an earlier assistant message, ` +
              "and Gemini needs the function's name.",
            'Send the assistant message holding that tool call before its result, or set name on the tool message.',
          );
        }
        push('user', [{ functionResponse: { name, response: functionResponseFromHub(contentText(m.content)) } }]);
        break;
      }
    }
  });
  return { contents, system };
}

function toolsFromHub(req: HubRequest, body: GeminiRequest): void {
  if (!req.tools?.length) return;
  const functionDeclarations = req.tools.map((t) => {
    const d: GeminiFunctionDeclaration = { name: t.function.name };
    if (t.function.description !== undefined) d.description = t.function.description;
    if (t.function.parameters) d.parametersJsonSchema = t.function.parameters;
    return d;
  });
  body.tools = [{ functionDeclarations }];
  const choice = req.tool_choice;
  if (choice === 'auto') body.toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  else if (choice === 'none') body.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (choice === 'required') body.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (choice && typeof choice === 'object') {
    body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
}

export function requestFromHub(req: HubRequest): GeminiRequest {
  const { contents, system } = contentsFromHub(req);
  const body: GeminiRequest = { contents };
  if (system.length) body.systemInstruction = { parts: system };
  toolsFromHub(req, body);
  const wire = body as Json;
  paramsFromHub(GEMINI_PARAMS, req, wire, { stopAsArray: true });
  structuredOutputFromHub(req, body);
  thinkingFromHub(req, wire);
  return body;
}
