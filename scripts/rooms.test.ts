// The room rules hold on the real tree, and the checker catches each kind of break (so a green run means something).
import { describe, expect, it } from 'vitest';
import { folderCycles, importsOf, roomViolations, sourceFiles } from './rooms.ts';

describe('rooms and what each may import', () => {
  it('the tree keeps every rule and has no import cycle between folders of main/', () => {
    const files = ['main', 'shared', 'renderer', 'preload'].flatMap((d) => sourceFiles(d));
    expect(files.length).toBeGreaterThan(100);
    expect(roomViolations(files)).toEqual([]);
    expect(folderCycles(files)).toEqual([]);
  });

  it('reads every import form: named, type-only, side-effect, re-export and dynamic', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      "import './side.ts';",
      "export { c } from './c/index.ts';",
      "export * from 'zod';",
      "const d = await import('../d.ts');",
      'import {',
      '  e,',
      "} from 'electron';",
    ].join('\n');
    expect(importsOf('main/proxy/x.ts', text).map((i) => [i.spec, i.target, i.line])).toEqual([
      ['./a.ts', 'main/proxy/a.ts', 1],
      ['../b.ts', 'main/b.ts', 2],
      ['./side.ts', 'main/proxy/side.ts', 3],
      ['./c/index.ts', 'main/proxy/c/index.ts', 4],
      ['zod', null, 5],
      ['../d.ts', 'main/d.ts', 6],
      ['electron', null, 7],
    ]);
  });

  it('reports each break with the file, the line and the rule', () => {
    const files: Record<string, string> = {
      'main/proxy/formats/x.ts': "import { ApiError } from '../../server/errors.ts';",
      'main/orchestrator/y.test.ts': "import { buildHttpApp } from '../server/app.ts';",
      'renderer/pages/z.tsx':
        "import { Engine } from '../../main/proxy/engine.ts';\nimport { api } from '../../shared/http-client.ts';",
      'main/config/w.ts': "import { app } from 'electron';",
      'main/electron/ok.ts': "import { app } from 'electron';",
      'main/wal/v.ts': "import { FaultyFs } from '../../test/support/wal/fs-faults.ts';",
      'shared/u.ts': "import fs from 'node:fs';",
      'main/store/t.ts':
        "import { Engine } from '../proxy/engine.ts';\nimport { logger } from '../observability/logger.ts';\nimport { ApiError } from '../errors.ts';",
      'main/store/t.test.ts': "import { startRedis } from '../../test/support/redis.ts';",
    };
    const problems = roomViolations(Object.keys(files), (f) => files[f]!);
    expect(problems).toEqual([
      expect.stringMatching(/^main\/proxy\/formats\/x\.ts:1 imports '\.\.\/\.\.\/server\/errors\.ts': .*HTTP layer/),
      expect.stringMatching(/^main\/orchestrator\/y\.test\.ts:1 .*HTTP layer/),
      expect.stringMatching(/^renderer\/pages\/z\.tsx:1 .*shared\/ only/),
      expect.stringMatching(/^main\/config\/w\.ts:1 imports 'electron'/),
      expect.stringMatching(/^main\/wal\/v\.ts:1 .*test support/),
      expect.stringMatching(/^shared\/u\.ts:1 imports 'node:fs'/),
      expect.stringMatching(/^main\/store\/t\.ts:1 imports '\.\.\/proxy\/engine\.ts': main\/store\/ \(shared state\)/),
    ]);
  });

  it('finds a cycle between folders, at the top and inside a folder', () => {
    const files: Record<string, string> = {
      'main/proxy/a.ts': "import '../server/b.ts';",
      'main/server/b.ts': "import '../proxy/c.ts';",
      'main/proxy/c.ts': '',
      'main/proxy/formats/f.ts': "import '../providers/p.ts';",
      'main/proxy/providers/p.ts': "import type { X } from '../formats/g.ts';",
      'main/proxy/formats/g.ts': '',
    };
    expect(folderCycles(Object.keys(files), (f) => files[f]!)).toEqual([
      ['main/proxy', 'main/server', 'main/proxy'],
      ['main/proxy/formats', 'main/proxy/providers', 'main/proxy/formats'],
    ]);
  });
});
