// The installers' configuration, checked where they cannot be built (Electron's binary cannot be downloaded here):
// - package.json carries what electron-builder needs: author with an email (the deb's maintainer), homepage, a
//   GitHub repository (publishing and auto-update), and electron-builder's own metadata check passes;
// - electron-builder.yml passes electron-builder's own schema validation (run in-process, as `electron-builder --dir`
//   runs it first), builds x64 and arm64 of each OS's targets, and makes a menu bar app on macOS (LSUIElement);
// - what it would pack: electron-builder's own collector lists package.json's production modules (`npm list --omit
//   dev`), the configuration's file patterns are applied to them with electron-builder's own matcher, and no dev
//   dependency (tsx, esbuild, Electron, React…) is left; "dependencies" are exactly what the build leaves to
//   node_modules (scripts/build.mjs), so nothing bundled is shipped twice;
// - and what it packs: `electron-builder --dir` for Linux x64 runs for real, on a stand-in for Electron's unpacked
//   distribution (electronDist: a folder with an `electron` executable, as Electron's zip has), and the app.asar it
//   writes is read back;
// - .github/workflows/release.yml parses, builds and starts every OS and architecture, and every script, test file and
//   packaged executable it names exists or is what electron-builder makes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error a plain ES module script without types
import { CLI_EXTERNAL, DESKTOP_EXTERNAL } from '../scripts/build.mjs';
// @ts-expect-error a plain ES module script without types
import { binaryPackage, nativePackagesFor } from '../scripts/native-deps.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  description: string;
  author: { name: string; email: string };
  homepage: string;
  repository: { type: string; url: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  scripts: Record<string, string>;
};
const builderYml = parse(read('electron-builder.yml')) as Record<string, any>;

// electron-builder's own modules (app-builder-lib and builder-util come with it).
const fromBuilder = createRequire(createRequire(import.meta.url).resolve('electron-builder/package.json'));
const appBuilder = createRequire(fromBuilder.resolve('app-builder-lib/package.json'));
const lib = (p: string) => appBuilder(`app-builder-lib/out/${p}`);
const builderUtil = appBuilder('builder-util') as { DebugLogger: new (enabled: boolean) => unknown; TmpDir: any };

type TargetEntry = string | { target: string; arch?: string[] };
const targets = (platform: 'win' | 'mac' | 'linux'): Record<string, string[]> =>
  Object.fromEntries(
    (builderYml[platform].target as TargetEntry[]).map((t) =>
      typeof t === 'string' ? [t, ['x64']] : [t.target, t.arch ?? ['x64']],
    ),
  );

describe('package.json: what electron-builder reads of the app', () => {
  it('has an author with an email, a homepage and a GitHub repository, and passes electron-builder’s check', async () => {
    expect(pkg.author).toEqual({
      name: expect.any(String),
      email: expect.stringMatching(/^[^@\s]+@[^@\s]+\.\w+$/),
      url: expect.any(String),
    });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.repository.url).toMatch(/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    const { checkMetadata } = lib('util/packageMetadata.js');
    expect(() => checkMetadata(pkg, pkg, 'package.json', 'package.json')).not.toThrow();
    // Publishing and auto-update find the repository from package.json (a worktree or a tarball has no .git/config).
    const { getRepositoryInfo } = lib('util/repositoryInfo.js');
    const repo = await getRepositoryInfo(ROOT, pkg, pkg);
    expect(repo).toMatchObject({ user: expect.any(String), project: expect.any(String) });
    expect(pkg.repository.url).toContain(`${repo.user}/${repo.project}`);
  });

  it('npm run dist builds, adds the other architecture’s prebuilt binary, then runs electron-builder on its config', () => {
    expect(pkg.scripts.dist).toBe(
      'npm run build && node scripts/native-deps.mjs x64 arm64 && electron-builder --config electron-builder.yml',
    );
    expect(fs.existsSync(path.join(ROOT, 'scripts/native-deps.mjs'))).toBe(true);
  });

  it("names the app Switchboard in development and installed alike (Electron's app name, its user-data folder)", () => {
    expect((pkg as unknown as { productName: string }).productName).toBe('Switchboard');
    expect(builderYml.productName).toBe('Switchboard');
  });

  it('the deb has a maintainer with an email (dpkg needs it) and the same address as the author', () => {
    expect(builderYml.linux.maintainer).toBe(`${pkg.author.name} <${pkg.author.email}>`);
  });
});

describe('electron-builder.yml', () => {
  it("passes electron-builder's own validation (a broken copy does not)", async () => {
    const { getConfig, validateConfiguration } = lib('util/config/config.js');
    const config = await getConfig(ROOT, 'electron-builder.yml', null);
    await expect(validateConfiguration(config, new builderUtil.DebugLogger(false))).resolves.toBeUndefined();
    const broken = { ...config, mac: { ...config.mac, extendInfo: 5 }, linux: { ...config.linux, executable: [] } };
    await expect(validateConfiguration(broken, new builderUtil.DebugLogger(false))).rejects.toThrow(
      /Invalid configuration object/,
    );
  }, 30_000);

  it('builds x64 and arm64 of every target: NSIS, dmg and zip, AppImage and deb', () => {
    expect(targets('win')).toEqual({ nsis: ['x64', 'arm64'] });
    expect(targets('mac')).toEqual({ dmg: ['x64', 'arm64'], zip: ['x64', 'arm64'] });
    expect(targets('linux')).toEqual({ AppImage: ['x64', 'arm64'], deb: ['x64', 'arm64'] });
    expect(builderYml.artifactName).toContain('${arch}');
  });

  it('makes a menu bar app on macOS, rebuilds nothing, publishes to GitHub releases', () => {
    expect(builderYml.mac.extendInfo.LSUIElement).toBe(true);
    expect(builderYml.npmRebuild).toBe(false);
    expect(builderYml.publish).toEqual([{ provider: 'github', releaseType: 'release' }]);
    expect(builderYml.extraMetadata.main).toBe('dist/main/electron/main.js');
    expect(fs.existsSync(path.join(ROOT, 'main/electron/main.ts'))).toBe(true);
    for (const icon of [builderYml.win.icon, builderYml.mac.icon, builderYml.linux.icon])
      expect(fs.existsSync(path.join(ROOT, icon))).toBe(true);
  });

  it("packs the app's build but not the CLI bundle, tests or source maps", () => {
    const { FileMatcher } = lib('fileMatcher.js');
    const matcher = new FileMatcher(ROOT, '/app', (p: string) => p, builderYml.files);
    const packs = matcher.createFilter() as (file: string, stat: { isDirectory(): boolean }) => boolean;
    const file = { isDirectory: () => false };
    const packed = (f: string) => packs(path.join(ROOT, f), file);
    for (const f of [
      'dist/main/electron/main.js',
      'dist/main/chunks/http-app-ABC.js',
      'dist/renderer/index.html',
      'dist/preload/preload.cjs',
      'assets/trayTemplate.png',
      'package.json',
    ])
      expect(packed(f), f).toBe(true);
    for (const f of [
      'dist/main/cli.cjs',
      'dist/main/cli.js',
      'dist/main/cli.cjs.1-2.node-22.23.5.cache',
      'dist/main/dynamic-imports.json',
      'dist/.runtime-stamp',
      'dist/main/electron/main.js.map',
      'dist/main/x.test.js',
      'main/electron/shell.ts',
      'node_modules/tsx/package.json',
    ])
      expect(packed(f), f).toBe(false);
  });
});

/**
 * The node_modules packages electron-builder would pack, by name and folder (relative to the project): its own
 * collector, then the configuration's exclusions.
 */
async function packedModules(): Promise<{ name: string; dir: string }[]> {
  const { getCollectorByPackageManager, PM } = lib('node-module-collector/index.js');
  const tmp = new builderUtil.TmpDir('installers-test');
  try {
    const collector = getCollectorByPackageManager(PM.NPM, ROOT, tmp);
    type Module = { name: string; dir: string; dependencies?: Module[] };
    const { nodeModules } = (await collector.getNodeModules({ packageName: pkg.name })) as { nodeModules: Module[] };
    const found = new Map<string, { name: string; dir: string }>();
    const walk = (list: Module[]) => {
      for (const m of list) {
        const dir = path.relative(ROOT, m.dir).split(path.sep).join('/');
        found.set(dir, { name: m.name, dir });
        if (m.dependencies) walk(m.dependencies);
      }
    };
    walk(nodeModules);
    // As electron-builder matches node_modules: everything, then the configuration's exclusions.
    const { FileMatcher } = lib('fileMatcher.js');
    const matcher = new FileMatcher(ROOT, '/app', (p: string) => p);
    for (const p of builderYml.files as string[]) if (p.startsWith('!')) matcher.addPattern(p);
    matcher.prependPattern('**/*');
    const keeps = matcher.createFilter() as (file: string, stat: { isDirectory(): boolean }) => boolean;
    return [...found.values()]
      .filter((m) => keeps(path.join(ROOT, 'node_modules', m.name, 'package.json'), { isDirectory: () => false }))
      .sort((a, b) => a.dir.localeCompare(b.dir));
  } finally {
    await tmp.cleanup();
  }
}

describe('what the installers pack', () => {
  it('no dev dependency: not tsx, esbuild, Electron, electron-builder, React, vitest… (electron-builder’s own list)', async () => {
    const modules = await packedModules();
    const packed = modules.map((m) => m.name);
    for (const runtime of [
      'electron-store',
      'electron-updater',
      '@node-rs/crc32',
      '@modelcontextprotocol/sdk',
      'undici',
    ])
      expect(packed).toContain(runtime);
    for (const dev of [
      'tsx',
      'esbuild',
      'electron',
      'electron-builder',
      'react',
      'react-dom',
      'zustand',
      'vite',
      'vitest',
      'typescript',
      'playwright-core',
    ])
      expect(packed).not.toContain(dev);
    // Left out on purpose: koffi (serve's malloc_trim), jsonc-parser (inside the desktop bundle).
    for (const left of ['koffi', 'jsonc-parser']) expect(packed).not.toContain(left);
    // Nothing only a dev dependency needs (package-lock.json marks those "dev").
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
    expect(modules.every((m) => lock.packages[m.dir] !== undefined)).toBe(true);
    const devOnly = modules.filter((m) => lock.packages[m.dir]!.dev === true).map((m) => m.dir);
    expect(devOnly).toEqual([]);
  }, 30_000);

  it('"dependencies" are exactly what the build leaves to node_modules; the rest is bundled or a tool', () => {
    const external = new Set<string>([...CLI_EXTERNAL, ...DESKTOP_EXTERNAL, 'undici']);
    external.delete('electron'); // Electron runs the app: a dev dependency electron-builder packages from its own zip
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const bundled = [...declared].filter((d) => !external.has(d));
    expect(bundled, 'bundled into dist/ by scripts/build.mjs: move these to devDependencies').toEqual([]);
    const missing = [...external].filter((d) => !declared.has(d));
    expect(missing, 'left to node_modules by scripts/build.mjs: these must be dependencies').toEqual([]);
    expect(pkg.devDependencies).toHaveProperty('tsx'); // npm run dev and the bin's fallback in a checkout only
    expect(pkg.devDependencies).toHaveProperty('electron');
    expect(pkg.dependencies['electron-store']).toMatch(/^~?11\./); // 12 needs Node 22; 11 runs on Node 20 and in Electron
  });

  it('every package the sources load at run time by name (require, import()) is left to node_modules', () => {
    const external = new Set<string>([...CLI_EXTERNAL, ...DESKTOP_EXTERNAL, 'undici']);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const f = path.join(dir, e.name);
        if (e.isDirectory()) walk(f);
        else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) files.push(f);
      }
    };
    walk('main');
    walk('shared');
    const named: string[] = [];
    for (const f of files) {
      const text = read(f);
      for (const m of text.matchAll(/(?:import|require|requireHere|\))\('([^'./][^']*)'\)/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        named.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(named.length).toBeGreaterThan(3);
    expect([...new Set(named)].filter((n) => !external.has(n))).toEqual([]);
  });

  it("the other architecture's prebuilt binaries (scripts/native-deps.mjs) are the locked versions' packages", () => {
    const crc = JSON.parse(read('node_modules/@node-rs/crc32/package.json')) as {
      version: string;
      optionalDependencies: Record<string, string>;
    };
    for (const platform of ['win32', 'darwin', 'linux'])
      for (const arch of ['x64', 'arm64']) {
        const name = binaryPackage('@node-rs/crc32', platform, arch) as string;
        expect(crc.optionalDependencies[name], name).toBe(crc.version);
      }
    expect(nativePackagesFor('win32', ['x64', 'arm64'])).toEqual([
      `@node-rs/crc32-win32-x64-msvc@${crc.version}`,
      `@node-rs/crc32-win32-arm64-msvc@${crc.version}`,
    ]);
    expect(() => nativePackagesFor('linux', ['mips'])).toThrow(/no binary for linux-mips/);
  });
});

describe('electron-builder --dir, on a stand-in Electron distribution', () => {
  let tmp = '';
  let out = '';
  let asar: { listPackage(file: string, o?: unknown): string[]; extractFile(file: string, name: string): Buffer };
  beforeAll(async () => {
    // @ts-expect-error a plain ES module script without types
    const { build } = (await import('../scripts/build.mjs')) as { build(o: object): Promise<void> };
    await build({ ifStale: true, log: () => undefined }); // what is packed is dist/: make it the sources'
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-installers-'));
    const electronDist = path.join(tmp, 'electron-dist');
    fs.mkdirSync(path.join(electronDist, 'resources'), { recursive: true });
    fs.mkdirSync(path.join(electronDist, 'locales'));
    fs.writeFileSync(path.join(electronDist, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
    for (const f of ['chrome-sandbox', 'LICENSE', 'version']) fs.writeFileSync(path.join(electronDist, f), '');
    out = path.join(tmp, 'out');
    const r = spawnSync(
      process.execPath,
      [
        fromBuilder.resolve('electron-builder/cli.js'),
        '--config',
        'electron-builder.yml',
        '--linux',
        'dir',
        '--x64',
        '--publish',
        'never',
        `-c.electronDist=${electronDist}`,
        `-c.directories.output=${out}`,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '1' } },
    );
    if (r.status !== 0) throw new Error(`electron-builder --dir failed:\n${r.stdout}\n${r.stderr}`);
    asar = appBuilder('@electron/asar');
  }, 180_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const app = () => path.join(out, 'linux-unpacked');
  const archive = () => path.join(app(), 'resources/app.asar');

  it('makes the app under its executable name, with the update feed of package.json’s repository', () => {
    expect(fs.existsSync(path.join(app(), builderYml.linux.executableName))).toBe(true);
    const feed = parse(fs.readFileSync(path.join(app(), 'resources/app-update.yml'), 'utf8')) as Record<string, string>;
    expect(feed).toMatchObject({ provider: 'github', releaseType: 'release' });
    expect(pkg.repository.url).toContain(`github.com/${feed.owner}/${feed.repo}.git`);
  });

  it('packs the desktop build, the UI, the preload and the icons; not the CLI, the sources, tests or maps', () => {
    const files = asar.listPackage(archive()).map((f) => f.replace(/\\/g, '/'));
    for (const f of [
      '/dist/main/electron/main.js',
      '/dist/preload/preload.cjs',
      '/dist/renderer/index.html',
      '/assets/trayTemplate.png',
      '/package.json',
    ])
      expect(files, f).toContain(f);
    const chunks = fs.readdirSync(path.join(ROOT, 'dist/main/chunks')).filter((c) => c.endsWith('.js'));
    for (const c of chunks) expect(files).toContain(`/dist/main/chunks/${c}`);
    const app = files.filter((f) => !f.startsWith('/node_modules/'));
    expect(
      app.filter((f) => /\/dist\/main\/cli|\.map$|\.test\.|^\/(main|shared|renderer|test|scripts)\//.test(f)),
    ).toEqual([]);
    const meta = JSON.parse(asar.extractFile(archive(), 'package.json').toString()) as Record<string, unknown>;
    expect(meta.main).toBe('dist/main/electron/main.js');
  });

  it('packs the runtime dependencies, none of the dev ones, and the native binary outside the archive', async () => {
    const files = asar.listPackage(archive()).map((f) => f.replace(/\\/g, '/'));
    // The archive's top-level packages: /node_modules/<name>, /node_modules/@<scope>/<name>.
    const packages = new Set(
      files
        .map((f) => /^\/node_modules\/((?:@[^/]+\/)?[^/@]+)$/.exec(f)?.[1])
        .filter((n): n is string => n !== undefined),
    );
    for (const d of Object.keys(pkg.dependencies).filter((d) => d !== 'jsonc-parser')) expect(packages, d).toContain(d);
    for (const d of [
      'tsx',
      'esbuild',
      'electron',
      'electron-builder',
      'react',
      'react-dom',
      'vite',
      'vitest',
      'jsonc-parser',
      'koffi',
    ])
      expect(packages.has(d), d).toBe(false);
    // Every package in the archive is one electron-builder's collector listed (the check above, without a build).
    const listed = new Set((await packedModules()).map((m) => m.name));
    expect([...packages].filter((n) => !n.includes('/') || n.startsWith('@')).filter((n) => !listed.has(n))).toEqual(
      [],
    );
    const unpacked = path.join(app(), 'resources/app.asar.unpacked/node_modules/@node-rs');
    expect(fs.readdirSync(unpacked).some((d) => d.startsWith('crc32-'))).toBe(true);
  }, 30_000);
});

type Step = {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
};
type Job = {
  'runs-on': string;
  needs?: string | string[];
  if?: string;
  strategy?: { matrix: { include: Record<string, string>[] } };
  steps: Step[];
  permissions?: Record<string, string>;
};
const workflow = parse(read('.github/workflows/release.yml')) as {
  on: { push: { tags: string[] }; workflow_dispatch: unknown };
  env: Record<string, string>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

/** Where electron-builder puts the unpacked app of a platform and architecture (its default output names). */
function unpackedApp(platform: 'linux' | 'win' | 'mac', arch: string): string {
  const product = builderYml.productName as string;
  if (platform === 'linux')
    return `out/linux-${arch === 'x64' ? '' : `${arch}-`}unpacked/${builderYml.linux.executableName as string}`;
  if (platform === 'win') return `out/win-${arch === 'x64' ? '' : `${arch}-`}unpacked/${product}.exe`;
  return `out/mac${arch === 'x64' ? '' : `-${arch}`}/${product}.app/Contents/MacOS/${product}`;
}

describe('.github/workflows/release.yml', () => {
  it('runs on a v* tag and by hand; publishes only from a tag, after every app started', () => {
    expect(workflow.on.push.tags).toEqual(['v*']);
    expect(workflow.on).toHaveProperty('workflow_dispatch');
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const publish = workflow.jobs.publish!;
    expect(publish.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    expect(publish.needs).toEqual(['installers', 'other-arch']);
    expect(publish.permissions).toEqual({ contents: 'write' });
  });

  it('builds and starts every OS and architecture, each on a runner of that architecture', () => {
    const built = new Set<string>();
    const started = new Set<string>();
    const runnerArch = (os: string) => (/-arm$|^macos-1[4-9]$|^macos-latest$/.test(os) ? 'arm64' : 'x64');
    for (const m of workflow.jobs.installers!.strategy!.matrix.include) {
      const platform = m.platform as 'linux' | 'win' | 'mac';
      for (const arch of m.archs!.split(' ')) built.add(`${platform}-${arch}`);
      const arch = runnerArch(m.os!);
      expect(m.app, m.id).toBe(unpackedApp(platform, arch)); // the app it starts is its runner's
      started.add(`${platform}-${arch}`);
      if (m.other) {
        const other = m.archs!.split(' ').find((a) => a !== arch)!;
        expect(
          unpackedApp(platform, other).startsWith(`${m.other}/`) || unpackedApp(platform, other).startsWith(m.other),
          m.id,
        ).toBe(true);
      }
    }
    for (const m of workflow.jobs['other-arch']!.strategy!.matrix.include) {
      const [platform, arch] = m.id!.split('-') as ['win' | 'mac', string];
      expect(runnerArch(m.os!), m.id).toBe(arch);
      expect(unpackedApp(platform, arch).endsWith(m.app!), m.id).toBe(true);
      expect(workflow.jobs.installers!.strategy!.matrix.include.some((i) => `app-${i.id}` === m.artifact)).toBe(true);
      started.add(`${platform}-${arch}`);
    }
    const all = ['linux', 'win', 'mac'].flatMap((p) => ['x64', 'arm64'].map((a) => `${p}-${a}`)).sort();
    expect([...built].sort()).toEqual(all);
    expect([...started].sort()).toEqual(all);
  });

  it('installs from the npm registry only, and every script, test file and config it names exists', () => {
    expect(workflow.env.ELECTRON_SKIP_BINARY_DOWNLOAD).toBe('1');
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    const runs = steps.map((s) => s.run ?? '').join('\n');
    expect(runs).not.toMatch(/\b(curl|wget|apt-get|brew|choco|pip)\b/);
    const installs = [...runs.matchAll(/\bnpm (ci|install|i)\b[^\n]*/g)].map((m) => m[0]);
    expect(installs.every((i) => i.startsWith('npm ci'))).toBe(true);
    for (const m of runs.matchAll(/\bnode (scripts\/[\w.-]+)/g))
      expect(fs.existsSync(path.join(ROOT, m[1]!)), m[1]).toBe(true);
    for (const m of runs.matchAll(/\bnpm run ([\w:-]+)/g)) expect(pkg.scripts, m[1]).toHaveProperty(m[1]!);
    for (const m of runs.matchAll(/vitest run [^\n]*?([\w/.-]+\.test\.ts)/g))
      expect(fs.existsSync(path.join(ROOT, m[1]!)), m[1]).toBe(true);
    for (const m of runs.matchAll(/--config ([\w.-]+)/g))
      expect(fs.existsSync(path.join(ROOT, m[1]!)), m[1]).toBe(true);
    for (const s of steps.filter((x) => x.uses))
      expect(s.uses, 'actions pinned to a major version').toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    // The smoke test reads the packaged app from SWITCHBOARD_PACKAGED_APP.
    expect(read('main/electron/electron.smoke.test.ts')).toContain('process.env.SWITCHBOARD_PACKAGED_APP');
    const smoke = steps.filter((s) => s.env?.SWITCHBOARD_PACKAGED_APP);
    expect(smoke).toHaveLength(2);
  });
});
