// The sampling-parameter map: one table per format, both ways, values checked with the field's path.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../errors.ts';
import { type ParamMap, paramsFromHub, paramsToHub } from './params.ts';
import type { HubRequest } from './types.ts';

const GEMINI_LIKE: ParamMap = {
  temperature: 'generationConfig.temperature',
  top_p: 'generationConfig.topP',
  top_k: 'generationConfig.topK',
  max_tokens: 'generationConfig.maxOutputTokens',
  stop: 'generationConfig.stopSequences',
  n: 'generationConfig.candidateCount',
  seed: 'generationConfig.seed',
};
const OLLAMA_LIKE: ParamMap = {
  temperature: 'options.temperature',
  max_tokens: { path: 'options.num_predict', toHub: (v) => (v > 0 ? Math.floor(v) : undefined) },
  stop: 'options.stop',
};
const hub = (): HubRequest => ({ model: 'm', messages: [] });

describe('sampling parameter map', () => {
  it('reads nested fields into the hub, and writes them back at the same paths', () => {
    const req = hub();
    const body = {
      generationConfig: {
        temperature: 0.3,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 64,
        stopSequences: ['END'],
        candidateCount: 2,
        seed: 7,
      },
    };
    paramsToHub(GEMINI_LIKE, body, req, { stopAsArray: true });
    expect(req).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 64,
      stop: ['END'],
      n: 2,
      seed: 7,
    });
    const out = {};
    paramsFromHub(GEMINI_LIKE, req, out, { stopAsArray: true });
    expect(out).toEqual(body);
  });

  it("applies a field's transform: Ollama's num_predict -1 (no limit) has no hub form, 100.7 is 100", () => {
    const a = hub();
    paramsToHub(OLLAMA_LIKE, { options: { num_predict: -1 } }, a);
    expect(a.max_tokens).toBeUndefined();
    const b = hub();
    paramsToHub(OLLAMA_LIKE, { options: { num_predict: 100.7, stop: 'END' } }, b);
    expect(b).toMatchObject({ max_tokens: 100, stop: 'END' });
  });

  it('refuses a bad value with a 400 naming the path', () => {
    const cases: [unknown, string][] = [
      [{ generationConfig: { temperature: 'hot' } }, '"generationConfig.temperature" must be a number'],
      [
        { generationConfig: { maxOutputTokens: 0 } },
        '"generationConfig.maxOutputTokens" must be a whole number of at least 1',
      ],
      [{ generationConfig: { stopSequences: 'END' } }, '"generationConfig.stopSequences" must be an array of strings'],
      [{ generationConfig: { stopSequences: [1] } }, '"generationConfig.stopSequences" must be an array of strings'],
    ];
    for (const [body, message] of cases) {
      let err: unknown;
      try {
        paramsToHub(GEMINI_LIKE, body as Record<string, unknown>, hub(), { stopAsArray: true });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, code: 'invalid_request' });
      expect((err as ApiError).message).toContain(message);
    }
  });

  it('takes numbers written as strings only where the format allows it (proto3 JSON)', () => {
    const req = hub();
    paramsToHub(GEMINI_LIKE, { generationConfig: { temperature: '0.5', maxOutputTokens: '64' } }, req, {
      numericStrings: true,
    });
    expect(req).toMatchObject({ temperature: 0.5, max_tokens: 64 });
    expect(() => paramsToHub(GEMINI_LIKE, { generationConfig: { temperature: '0.5' } }, hub())).toThrow(ApiError);
  });

  it("writes max_completion_tokens (OpenAI's newer name) over max_tokens, clamps through fromHub, and leaves out an empty stop", () => {
    const map: ParamMap = {
      max_tokens: 'max_tokens',
      temperature: { path: 'temperature', fromHub: (v) => Math.min(1, v) },
      stop: 'stop_sequences',
    };
    const out = {};
    paramsFromHub(map, { ...hub(), max_tokens: 10, max_completion_tokens: 20, temperature: 1.5, stop: [] }, out, {
      stopAsArray: true,
    });
    expect(out).toEqual({ max_tokens: 20, temperature: 1 });
    const one = {};
    paramsFromHub(map, { ...hub(), stop: 'END' }, one, { stopAsArray: true });
    expect(one).toEqual({ stop_sequences: ['END'] });
  });
});
