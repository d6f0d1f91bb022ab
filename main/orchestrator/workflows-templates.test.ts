import { describe, expect, it } from 'vitest';
import { missingInputs, renderTemplate, templateRefs } from './workflows-templates.ts';

describe('workflow templates', () => {
  it('classifies references, with or without spaces', () => {
    expect(templateRefs('a {{input.topic}} b {{ steps.draft.output }} {{steps.x}} {{foo}}').map((r) => r.kind)).toEqual(
      ['input', 'step', 'unknown', 'unknown'],
    );
    expect(templateRefs('{{ steps.my step.output }}')[0]).toMatchObject({ kind: 'step', step: 'my step' });
  });

  it('renders inputs (non-strings as JSON) and step outputs, once, without expanding inserted text', () => {
    const out = renderTemplate(
      'T={{input.topic}} N={{input.n}} D={{steps.draft.output}} G={{steps.gone.output}}',
      { topic: '{{input.n}}', n: { a: 1 } },
      new Map([
        ['draft', 'text'],
        ['gone', null],
      ]),
    );
    expect(out).toBe('T={{input.n}} N={"a":1} D=text G=');
  });

  it('lists missing input keys once each, naming a step that uses it', () => {
    const steps = [
      { name: 'a', prompt: '{{input.x}} {{input.y}}' },
      { name: 'b', prompt: '{{input.x}} {{input.z}}' },
    ];
    expect(missingInputs(steps, { y: 0 })).toEqual([
      { key: 'x', step: 'a' },
      { key: 'z', step: 'b' },
    ]);
  });
});
