// Gemini's wire types (the fields we read and write) and Google's status names.
import type { Json } from '../hub/index.ts';

export type GeminiFunctionCall = { id?: string; name: string; args?: Json };

export type GeminiPart = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { id?: string; name: string; response: Json };
};

export type GeminiContent = { role?: 'user' | 'model'; parts: GeminiPart[] };

export type GeminiFunctionDeclaration = { name: string; description?: string; parametersJsonSchema?: Json };

export type GeminiRequest = {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: Json;
};

/** Token counts (read and written by GEMINI_USAGE in common.ts). */
export type GeminiUsage = {
  promptTokenCount?: number;
  /** Part of promptTokenCount: tokens read from the cached content. */
  cachedContentTokenCount?: number;
  /** The reply, without the thoughts. */
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
};

export type GeminiCandidate = {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
};

export type GeminiResponse = {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
};

/** Google's canonical status names, as Gemini error bodies carry them. */
export type GoogleStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

export type GeminiErrorBody = {
  error: { code: number; message: string; status: GoogleStatus; details?: unknown[] };
};

/** The `error` object inside a Gemini error body, as read (any field may be missing or mistyped). */
export type GeminiErrorFields = { code?: unknown; message?: unknown; status?: unknown };
