// An MCP tool result (content blocks, structured content, isError) as what the agent loop passes on: the tool
// message's text (also the tool_result event's output) and the images, which go to the model as image parts of a
// user message right after the tool results (OpenAI's tool messages take text only; every provider format takes
// images in a user message).
import type { HubContentPart } from '../../proxy/formats/hub/index.ts';

/** The part of an MCP CallToolResult the loop reads (the SDK's type, loosened: servers send what they send). */
export type McpToolResult = {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  /** Protocol 2024-10-07 servers answered `toolResult` instead of content. */
  toolResult?: unknown;
};

export type ToolOutput = { text: string; images: HubContentPart[] };

/** What the model is given at most of one result's text (more is cut, and it says so). */
export const MAX_TOOL_TEXT = 1_000_000;

const size = (base64: string): string => {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((base64.length * 3) / 4) - pad;
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
};

type Block = { type?: unknown; [k: string]: unknown };

/** One content block as text; an image also as an image part. */
function blockText(b: Block, images: HubContentPart[]): string {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : '';
    case 'image': {
      const mime = typeof b.mimeType === 'string' ? b.mimeType : 'image/png';
      const data = typeof b.data === 'string' ? b.data : '';
      images.push({ type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } });
      return `[image ${images.length}: ${mime}, ${size(data)}, attached after the tool results]`;
    }
    case 'audio': {
      const mime = typeof b.mimeType === 'string' ? b.mimeType : 'audio';
      const data = typeof b.data === 'string' ? b.data : '';
      return `[audio: ${mime}, ${size(data)}; not passed on: the agent loop gives the model text and images only]`;
    }
    case 'resource': {
      const r = (b.resource ?? {}) as Block;
      const uri = typeof r.uri === 'string' ? r.uri : '(no uri)';
      if (typeof r.text === 'string') return `[resource ${uri}]\n${r.text}`;
      const mime = typeof r.mimeType === 'string' ? r.mimeType : 'binary';
      const blob = typeof r.blob === 'string' ? r.blob : '';
      if (mime.startsWith('image/') && blob) {
        images.push({ type: 'image_url', image_url: { url: `data:${mime};base64,${blob}` } });
        return `[resource ${uri}: image ${images.length}, ${mime}, ${size(blob)}, attached after the tool results]`;
      }
      return `[resource ${uri}: ${mime}, ${size(blob)}; its bytes are not passed on]`;
    }
    case 'resource_link': {
      const name = typeof b.name === 'string' ? ` "${b.name}"` : '';
      const desc = typeof b.description === 'string' ? `: ${b.description}` : '';
      return `[resource link${name}: ${String(b.uri)}${desc}]`;
    }
    default:
      return JSON.stringify(b);
  }
}

/** The result as text and images; `isError` results start with "error: ", as the built-in tools' failures do. */
export function toolOutput(result: McpToolResult): ToolOutput {
  const images: HubContentPart[] = [];
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts = blocks.map((b) => blockText(b ?? {}, images)).filter((t) => t !== '');
  // Structured content goes to the model when no text block carries the result (servers should send it as text too,
  // the spec's backward-compatible form; when they send text, that is the form they chose for the model).
  const hasText = blocks.some((b) => b?.type === 'text');
  if (result.structuredContent !== undefined && !hasText)
    parts.push(`structured content: ${JSON.stringify(result.structuredContent)}`);
  if (result.toolResult !== undefined && blocks.length === 0) parts.push(JSON.stringify(result.toolResult));
  let text = parts.join('\n');
  if (text === '') text = result.isError ? 'the tool failed without saying why' : '(the tool returned no content)';
  if (text.length > MAX_TOOL_TEXT)
    text = `${text.slice(0, MAX_TOOL_TEXT)}\n[cut: the result had ${text.length} characters, ${MAX_TOOL_TEXT} are passed on]`;
  return { text: result.isError ? `error: ${text}` : text, images };
}
