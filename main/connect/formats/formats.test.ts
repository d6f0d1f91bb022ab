// The text edits Connect makes: each changes only what it names, in the file's own style, and reads back right.
import { describe, expect, it } from 'vitest';
import { parseDotenv, setDotenv } from './dotenv.ts';
import { parseJsonc, setJsonc } from './jsonc.ts';
import { ParseProblem } from './problem.ts';
import { parseToml, setRootKey, setTable } from './toml.ts';
import { parseYamlDoc } from './yaml-doc.ts';

const problem = (f: () => unknown): ParseProblem => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ParseProblem);
    return err as ParseProblem;
  }
  throw new Error('no ParseProblem');
};

describe('TOML text edits', () => {
  const table = ['[model_providers.switchboard]', 'base_url = "http://localhost:1/v1"'];

  it('a "[" inside a multi-line string or a multi-line array is not a table header', () => {
    const text = 'notes = """\n[model_providers.switchboard]\n"""\nlist = [\n  [1, 2],\n]\n\n[tui]\nx = 1\n';
    const out = setRootKey(setTable(text, 'model_providers.switchboard', table), 'model_provider', '"switchboard"');
    expect(out).toBe(
      'notes = """\n[model_providers.switchboard]\n"""\nlist = [\n  [1, 2],\n]\nmodel_provider = "switchboard"\n\n[tui]\nx = 1\n\n' +
        '[model_providers.switchboard]\nbase_url = "http://localhost:1/v1"\n',
    );
    expect(parseToml(out).notes).toBe('[model_providers.switchboard]\n');
  });

  it('an existing table is replaced up to the comments that lead the next one; a key line keeps its comment', () => {
    const text =
      'model_provider = \'azure\' # work\n\n[model_providers.switchboard]\nbase_url = "http://old/v1"\n\n# next\n[model_providers.azure]\nname = "Azure"\n';
    const out = setRootKey(setTable(text, 'model_providers.switchboard', table), 'model_provider', '"switchboard"');
    expect(out).toBe(
      'model_provider = "switchboard" # work\n\n[model_providers.switchboard]\nbase_url = "http://localhost:1/v1"\n\n# next\n[model_providers.azure]\nname = "Azure"\n',
    );
  });

  it('a root key inside a table is not the root key; CRLF files get CRLF lines; an empty file gets both', () => {
    const text = '# top\r\n[profiles.work]\r\nmodel_provider = "azure"\r\n';
    expect(setRootKey(text, 'model_provider', '"switchboard"')).toBe(
      'model_provider = "switchboard"\r\n\r\n# top\r\n[profiles.work]\r\nmodel_provider = "azure"\r\n',
    );
    expect(setRootKey(setTable('', 'a.b', ['[a.b]', 'x = 1']), 'k', '"v"')).toBe('k = "v"\n\n[a.b]\nx = 1\n');
  });

  it('a file that does not parse names its line and column', () => {
    const p = problem(() => parseToml('a = 1\nb = [1,\nc'));
    expect([p.line, p.column]).toEqual([3, 1]);
  });
});

describe('JSON(C) edits', () => {
  it('a new member goes on its own line after its last sibling, whose trailing comment stays with it', () => {
    expect(setJsonc('{\n\t"a": 1 // one\n}\n', [[['b'], { c: true }]])).toBe(
      '{\n\t"a": 1, // one\n\t"b": {\n\t\t"c": true\n\t}\n}\n',
    );
  });

  it('an object that closes on the line of its last member gets the new one inline', () => {
    expect(setJsonc('{"env": {"X": "y"}}', [[['env', 'Z'], 'v']])).toBe('{"env": {"X": "y", "Z": "v"}}');
  });

  it('an existing value is replaced where it stands; an empty file becomes an object', () => {
    expect(setJsonc('{ "a": "old" /* keep */ }', [[['a'], 'new']])).toBe('{ "a": "new" /* keep */ }');
    expect(setJsonc('', [[['a', 'b'], 1]])).toBe('{\n  "a": {\n    "b": 1\n  }\n}\n');
  });

  it('a file that is not JSON names its line and column; one that is not an object is refused', () => {
    const p = problem(() => parseJsonc('{\n  "a": 1\n  "b": 2\n}'));
    expect([p.line, p.column, p.message]).toEqual([3, 3, 'comma expected']);
    expect(problem(() => parseJsonc('[1]')).message).toBe('the file is not a JSON object');
  });
});

describe('.env edits', () => {
  it('reads as dotenv does: export, quotes, comments, the last line of a key', () => {
    const env = parseDotenv('export A="x y" # c\nB=\'lit\'\nC=bare # note\nC=again\n#D=no\n');
    expect(Object.fromEntries(env)).toEqual({ A: 'x y', B: 'lit', C: 'again' });
  });

  it('replaces the last line of a key (keeping `export`) and appends the others', () => {
    expect(
      setDotenv('# x\nexport A=1\nA=2 # two\n', [
        ['A', 'http://h'],
        ['B', 'a: b'],
      ]),
    ).toBe('# x\nexport A=1\nA=http://h\nB="a: b"\n');
    expect(setDotenv('A=1', [['B', '2']])).toBe('A=1\nB=2\n');
  });
});

describe('YAML documents', () => {
  it('a YAML error names its line and column; a list at the top is not a config', () => {
    const p = problem(() => parseYamlDoc('a: 1\nb: [1,\n  c: d\n'));
    expect(p.line).toBeGreaterThan(1);
    expect(problem(() => parseYamlDoc('- a\n- b\n')).message).toContain('not a YAML mapping');
  });
});
