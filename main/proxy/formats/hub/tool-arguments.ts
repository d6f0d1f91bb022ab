// One policy for tool-call arguments between the hub (JSON text, as OpenAI sends them) and formats whose wire needs an
// object (Anthropic's `input`, Gemini's `args`, Ollama's `arguments`).
//
// Policy "keep the text": arguments that are not a JSON object — a stream cut mid-call, a model that wrote prose or
// an array — are never dropped and never replaced by {}: they travel as {"_raw": "<the text>"}, and an object that is
// exactly {"_raw": "<text>"} reads back as that text, so a round trip gives the original arguments.
import { isObject, type Json } from './json.ts';

/** The one key that carries arguments which are not a JSON object. */
export const RAW_ARGUMENTS_KEY = '_raw';

/** Hub arguments (JSON text) as the object an object-arguments format needs. Empty text is {}. */
export function argumentsFromHub(text: string): Json {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // not JSON: keep the text below
  }
  return { [RAW_ARGUMENTS_KEY]: text };
}

/** An object-arguments format's arguments as hub arguments (JSON text). Text is kept as it came. */
export function argumentsToHub(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '{}';
  if (isObject(value)) {
    const keys = Object.keys(value);
    const raw = value[RAW_ARGUMENTS_KEY];
    if (keys.length === 1 && typeof raw === 'string') return raw;
  }
  return JSON.stringify(value);
}
