// The package as users install it: `npm pack` of the built tree, installed from the tarball
// into an empty folder with install scripts off (npm's `ignore-scripts=true`, which many users
// set; nothing is compiled, as on a machine without a compiler): koffi loads its prebuilt
// platform package, better-sqlite3 is present but unbuilt, and `xrunhunt --version`, `analyze`
// and `import 'xrunhunt'` run from there while `aggregate` says what is missing. Not
// `--omit=optional`: that also drops koffi's prebuilt binaries, and koffi's own install script
// then compiles it from source with cmake and a C++ compiler (21 s of the old test's 47 s).
// Needs `npm run build` first (npm test does it); the registry (or npm's cache) must be
// reachable for the runtime dependencies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, runCli } from '../helpers/cli.js';

const run = promisify(execFile);
const LOG = join(repoRoot, 'test/fixtures/kernel-logs/lab-6.1-x86_64-shapes-dmesg.txt');

interface PackedFile {
  path: string;
}

async function exec(
  cmd: string,
  args: string[],
  cwd: string,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const p = run(cmd, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    if (input !== undefined) {
      p.child.stdin?.end(input);
    } else p.child.stdin?.end();
    const r = await p;
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('npm pack → install --ignore-scripts into an empty folder → --version, analyze and import work', async () => {
  assert.ok(
    existsSync(join(repoRoot, 'dist/index.js')) && existsSync(join(repoRoot, 'dist/index.d.ts')),
    'dist/ is not built: run `npm run build` first',
  );
  const dir = mkdtempSync(join(tmpdir(), 'xrh-pack-'));
  try {
    const pack = await exec(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      repoRoot,
    );
    assert.equal(pack.code, 0, pack.stderr);
    const [info] = JSON.parse(pack.stdout) as { filename: string; files: PackedFile[] }[];
    assert.ok(info);
    const packed = new Set(info.files.map((f) => f.path));
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>;
      license: string;
      optionalDependencies?: Record<string, string>;
      man: string[];
      dependencies: Record<string, string>;
    };
    // exports points at files that are in the tarball, with type declarations.
    const entry = pkg.exports['.']!;
    for (const f of [entry.import, entry.types, 'bin/xrunhunt.js', 'LICENSE', ...pkg.man]) {
      assert.ok(packed.has(f.replace(/^\.\//, '')), `${f} is not in the tarball`);
    }
    // The LICENSE text is the licence package.json names.
    assert.equal(pkg.license, 'GPL-2.0-or-later');
    assert.match(
      readFileSync(join(repoRoot, 'LICENSE'), 'utf8'),
      /GNU GENERAL PUBLIC LICENSE\s+Version 2, June 1991/,
    );
    assert.ok(pkg.optionalDependencies?.['better-sqlite3'], 'better-sqlite3 must be optional');
    assert.equal(pkg.dependencies['better-sqlite3'], undefined);

    const app = join(dir, 'app');
    mkdirSync(app);
    const install = await exec(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--no-save',
        '--prefix',
        app,
        join(dir, info.filename),
      ],
      app,
    );
    assert.equal(install.code, 0, install.stderr);
    // Nothing was built: the SQLite module has no binary (the no-compiler path), and koffi
    // has not built one either (it must load from its prebuilt platform package).
    assert.equal(
      existsSync(join(app, 'node_modules/better-sqlite3/build')),
      false,
      'the optional SQLite module was built; the no-compiler path is not tested',
    );
    assert.equal(existsSync(join(app, 'node_modules/koffi/build')), false);
    const bin = join(app, 'node_modules/.bin/xrunhunt');

    const version = await exec(bin, ['--version'], app);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(
      version.stdout,
      `xrunhunt ${JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version as string}\n`,
    );

    // analyze from the installed package ranks exactly like the source tree.
    const installed = await exec(bin, ['analyze', '--json', '-'], app, readFileSync(LOG, 'utf8'));
    const source = await runCli(['analyze', '--json', LOG]);
    assert.equal(installed.code, 2, installed.stderr);
    assert.equal(source.code, 2, source.stderr);
    const a = JSON.parse(installed.stdout) as {
      events: { source?: string }[];
      offenders: unknown[];
    };
    const b = JSON.parse(source.stdout) as { events: { source?: string }[]; offenders: unknown[] };
    assert.ok(a.events.length > 0);
    assert.deepEqual(a.offenders, b.offenders);

    // The fleet store says what is missing instead of crashing.
    const agg = await exec(bin, ['aggregate', '--db', join(app, 'fleet.db')], app);
    assert.equal(agg.code, 1);
    assert.match(agg.stderr, /optional native module better-sqlite3/);
    assert.doesNotMatch(agg.stderr, /\n\s+at /);

    // The import entry loads (no native module at import time) and exposes the core.
    const imp = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('xrunhunt'); console.log(typeof m.analyzeText, typeof m.readBundle, m.toolVersion());",
      ],
      app,
    );
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /^function function \d+\.\d+\.\d+\n$/);

    // The FFI behind play and session loads from koffi's prebuilt binary, compiled by nobody.
    const ffi = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const k = await import('koffi'); console.log(typeof k.default.load);",
      ],
      app,
    );
    assert.equal(ffi.code, 0, ffi.stderr);
    assert.equal(ffi.stdout, 'function\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
