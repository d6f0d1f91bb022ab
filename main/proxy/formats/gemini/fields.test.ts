// Every field of a GenerateContentRequest: translated, refused with a 400 naming it, or dropped (with its reason).
import { describe, expect, it } from 'vitest';
import { badRequest } from '../fixtures.test-helper.ts';
import type { Json } from '../hub/index.ts';
import { DECLARATION_FIELDS, GENERATION_CONFIG_FIELDS, REQUEST_FIELDS, TOOL_CONFIG_FIELDS } from './fields.ts';
import { geminiFormat } from './index.ts';

const ctx = { pathModel: 'gemini-2.5-flash', pathStream: true };
const base = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
const toHub = (extra: Json) => geminiFormat.requestToHub({ ...base, ...extra }, ctx);
const plain = toHub({});

describe('refused: only Gemini can honour them, and leaving them out would change the answer', () => {
  it.each([
    [{ tools: [{ googleSearch: {} }] }, 'tools[0].googleSearch'],
    [{ tools: [{ functionDeclarations: [{ name: 'f' }] }, { codeExecution: {} }] }, 'tools[1].codeExecution'],
    [{ tools: [{ urlContext: {} }] }, 'tools[0].urlContext'],
    [{ tools: [{ google_search_retrieval: {} }] }, 'tools[0].googleSearchRetrieval'],
    [{ tools: [{ googleMaps: {} }] }, 'tools[0].googleMaps'],
    [{ cachedContent: 'cachedContents/abc123' }, '"cachedContent"'],
    [{ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, 'generationConfig.responseModalities'],
    [{ generationConfig: { responseModalities: ['AUDIO'] } }, 'generationConfig.responseModalities'],
    [{ generationConfig: { responseLogprobs: true } }, 'generationConfig.responseLogprobs'],
    [{ generationConfig: { logprobs: 3 } }, 'generationConfig.logprobs'],
    [{ generationConfig: { responseMimeType: 'text/x.enum' } }, 'generationConfig.responseMimeType'],
  ])('%j: 400 naming the field', (extra, named) => {
    const e = badRequest(() => toHub(extra), named);
    expect(`${e.message} ${e.action}`).toMatch(/Gemini/);
  });

  it('a generationConfig that is not an object: 400', () => {
    badRequest(() => toHub({ generationConfig: 'hot' }), '"generationConfig" must be an object');
  });

  it.each([
    [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }, 'contents[1].parts[0].executableCode'],
    [{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }, 'contents[1].parts[0].codeExecutionResult'],
    [{ fileData: { fileUri: 'https://x/v.mp4' }, videoMetadata: { startOffset: '10s' } }, 'videoMetadata'],
  ])('a part %j: 400 naming it', (part, named) => {
    badRequest(
      () => toHub({ contents: [base.contents[0], { role: 'model', parts: [part] }, base.contents[0]] }),
      named,
    );
  });

  it('a functionResponse with media parts: 400 naming them', () => {
    const contents = [
      base.contents[0],
      { role: 'model', parts: [{ functionCall: { name: 'shot', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'shot', response: {}, parts: [{ inlineData: {} }] } }] },
    ];
    badRequest(() => toHub({ contents }), 'contents[2].parts[0].functionResponse.parts');
  });
});

describe('accepted as they are harmless to leave out, or translated', () => {
  it.each([
    [{ generationConfig: { responseModalities: ['TEXT'] } }],
    [{ generationConfig: { responseLogprobs: false } }],
    [{ generationConfig: { responseMimeType: 'text/plain' } }],
    [{ cachedContent: '' }],
  ])('%j changes nothing', (extra) => {
    expect(toHub(extra)).toEqual(plain);
  });

  it.each([
    [{ safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] }],
    [{ labels: { team: 'x' } }],
    [{ serviceTier: 'flex' }],
    [{ generationConfig: { speechConfig: { voiceConfig: {} }, enableEnhancedCivicAnswers: true } }],
    [{ generationConfig: { imageConfig: { aspectRatio: '16:9' }, audioTimestamp: true } }],
    [{ toolConfig: { retrievalConfig: { latLng: { latitude: 1, longitude: 2 } } } }],
  ])('dropped: %j', (extra) => {
    expect(toHub(extra)).toEqual(plain);
  });

  it("drops a declaration's result schema and behavior, keeping the function", () => {
    const hub = toHub({
      tools: [
        {
          functionDeclarations: [
            { name: 'f', parametersJsonSchema: { type: 'object' }, response: { type: 'STRING' }, behavior: 'BLOCKING' },
          ],
        },
      ],
    });
    expect(hub.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
  });

  it('translates mediaResolution to the detail of every image', () => {
    const hub = toHub({
      contents: [{ parts: [{ text: 'What is it?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }],
      generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW' },
    });
    expect(hub.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is it?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
      ],
    });
    badRequest(() => toHub({ generationConfig: { mediaResolution: 'ULTRA' } }), 'generationConfig.mediaResolution');
  });

  it('asks for usage on a stream (Gemini ends every stream with usageMetadata)', () => {
    expect(plain.stream_options).toEqual({ include_usage: true });
    expect(geminiFormat.requestToHub(base, { pathModel: 'm' }).stream_options).toBeUndefined();
  });
});

describe('the tables', () => {
  it('give every dropped field a reason and every refused field what it needs and the fix', () => {
    for (const table of [REQUEST_FIELDS, GENERATION_CONFIG_FIELDS, DECLARATION_FIELDS, TOOL_CONFIG_FIELDS]) {
      for (const rule of Object.values(table)) {
        if (rule.fate === 'dropped') expect(rule.why.length).toBeGreaterThan(10);
        if (rule.fate === 'refused') expect(rule.what.length + rule.fix.length).toBeGreaterThan(20);
      }
    }
  });
});
