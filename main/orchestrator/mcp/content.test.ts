import { describe, expect, it } from 'vitest';
import { MAX_TOOL_TEXT, toolOutput } from './content.ts';

describe('MCP tool results for the model', () => {
  it('joins text blocks; images become image parts (described in the text), the rest is described', () => {
    const out = toolOutput({
      content: [
        { type: 'text', text: 'Here is the chart:' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
        { type: 'resource_link', uri: 'file:///b.md', name: 'b.md', description: 'notes' },
      ],
    });
    expect(out.images).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }]);
    expect(out.text.split('\n')).toEqual([
      'Here is the chart:',
      '[image 1: image/png, 8 bytes, attached after the tool results]',
      '[audio: audio/wav, 3 bytes; not passed on: the agent loop gives the model text and images only]',
      '[resource file:///a.txt]',
      'hello',
      '[resource file:///a.bin: application/octet-stream, 3 bytes; its bytes are not passed on]',
      '[resource link "b.md": file:///b.md: notes]',
    ]);
  });

  it('adds structured content when no text block carries the result; an error result says error', () => {
    const weather = { temperature: 36, conditions: 'rain' };
    expect(
      toolOutput({ content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather }).text,
    ).toBe(JSON.stringify(weather));
    expect(toolOutput({ content: [], structuredContent: weather }).text).toBe(
      `structured content: ${JSON.stringify(weather)}`,
    );
    // server-filesystem's read_text_file: the text, and the same as {content}; the model gets the text once.
    const read = { content: [{ type: 'text', text: 'hello' }], structuredContent: { content: 'hello' } };
    expect(toolOutput(read).text).toBe('hello');
    expect(toolOutput({ content: [{ type: 'text', text: 'no such repo' }], isError: true }).text).toBe(
      'error: no such repo',
    );
    expect(toolOutput({ content: [] }).text).toBe('(the tool returned no content)');
  });

  it('cuts a huge result and says so', () => {
    const out = toolOutput({ content: [{ type: 'text', text: 'x'.repeat(MAX_TOOL_TEXT + 10) }] });
    expect(out.text.length).toBeLessThan(MAX_TOOL_TEXT + 200);
    expect(out.text).toMatch(/\[cut: the result had 1000010 characters, 1000000 are passed on\]$/);
  });
});
