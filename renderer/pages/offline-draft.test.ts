// The Routing page's offline fallback draft (routing.offline): to rows and back in order, blank rows left out, rows
// config.json cannot hold found, windows as typed, which providers look local, and the schema's problems at the fields.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { fieldErrors } from '../components/field-errors.ts';
import { looksLocal, offlineConfig, offlineDraft, offlineFields, rowErrors, windowModels } from './offline-draft.ts';

const saved = {
  enabled: true,
  providers: ['ollama'],
  model_map: { 'claude-sonnet-*': 'qwen3-coder:30b', 'claude-*': 'qwen3:8b', 'gpt-*': 'qwen3:8b' },
  context_windows: { 'qwen3-coder:30b': 32768 },
};

describe('offline fallback draft', () => {
  it('round-trips routing.offline with the map order kept', () => {
    const d = offlineDraft(saved);
    expect(d.map.map((r) => r.glob)).toEqual(['claude-sonnet-*', 'claude-*', 'gpt-*']);
    expect(windowModels(d)).toEqual(['qwen3-coder:30b', 'qwen3:8b']);
    expect(offlineConfig(d, saved)).toEqual(saved);
    expect(Object.keys(offlineConfig(d, saved)!.model_map!)).toEqual(['claude-sonnet-*', 'claude-*', 'gpt-*']);
  });

  it('leaves routing.offline out when it was not there and nothing is set; keeps it (off) when it was', () => {
    const blank = offlineDraft(undefined);
    expect(offlineConfig(blank, undefined)).toBeUndefined();
    expect(offlineConfig(blank, saved)).toEqual({ enabled: false, providers: [], model_map: {} });
  });

  it('drops blank rows and empty windows, trims, and keeps a window that is not a number as typed', () => {
    const d = offlineDraft(undefined);
    d.enabled = true;
    d.providers = ['ollama'];
    d.map = [
      { glob: ' gpt-* ', local: ' qwen3:8b ' },
      { glob: '', local: '' },
    ];
    d.windows = { 'qwen3:8b': '32,768' };
    expect(offlineConfig(d, undefined)).toEqual({
      enabled: true,
      providers: ['ollama'],
      model_map: { 'gpt-*': 'qwen3:8b' },
      context_windows: { 'qwen3:8b': 32768 },
    });
    d.windows = { 'qwen3:8b': '' };
    expect(offlineConfig(d, undefined)).not.toHaveProperty('context_windows');
    d.windows = { 'qwen3:8b': 'lots' };
    expect(offlineConfig(d, undefined)!.context_windows).toEqual({ 'qwen3:8b': 'lots' });
  });

  it('finds the rows config.json cannot hold: a glob twice, a local model without a glob', () => {
    const d = offlineDraft(undefined);
    d.map = [
      { glob: 'gpt-*', local: 'a' },
      { glob: 'gpt-*', local: 'b' },
      { glob: '', local: 'c' },
      { glob: '', local: '' },
    ];
    expect(Object.keys(rowErrors(d))).toEqual(['offline-map-1-glob', 'offline-map-2-glob']);
    expect(rowErrors(d)['offline-map-1-glob']).toMatch(/^Row 1 has this pattern already/);
  });

  it('suggests providers of type ollama or on loopback as local', () => {
    expect(looksLocal({ type: 'ollama', base_url: 'http://gpu-box:11434' })).toBe(true);
    expect(looksLocal({ base_url: 'http://localhost:1234/v1' })).toBe(true);
    expect(looksLocal({ base_url: 'http://127.0.0.1:8080/v1' })).toBe(true);
    expect(looksLocal({ base_url: 'http://[::1]:8080/v1' })).toBe(true);
    expect(looksLocal({ base_url: 'https://api.openai.com/v1' })).toBe(false);
    expect(looksLocal({ base_url: 'not a url' })).toBe(false);
  });

  it("puts the schema's problems at the fields: no provider, an unknown one, a bad local model, a small window", () => {
    const d = offlineDraft(undefined);
    d.enabled = true;
    d.map = [
      { glob: 'claude-3.5-*', local: '' },
      { glob: 'gpt-*', local: 'qwen3:8b' },
    ];
    d.windows = { 'qwen3:8b': '100' };
    const problemsOf = (providers: string[]) => {
      d.providers = providers;
      const r = parseConfig({
        providers: [{ name: 'ollama', type: 'ollama', base_url: 'http://127.0.0.1:11435' }],
        routing: { default_provider: '', rules: [], offline: offlineConfig(d, undefined) },
      });
      if (r.ok) throw new Error('expected problems');
      return fieldErrors(r.problems, offlineFields(d));
    };
    const none = problemsOf([]);
    expect(none.rest).toEqual([]);
    expect(none.fields).toEqual({
      'offline-providers': 'Local providers must name at least one provider when the offline fallback is enabled.',
      'offline-map-0-local': expect.stringMatching(/^The local model of row 1 must name the local model/),
      'offline-window-0': 'The context window of qwen3:8b must be at least 512 tokens.',
    });
    expect(problemsOf(['nope']).fields['offline-provider-0']).toBe('No provider is named "nope": pick one of ollama.');
  });
});
