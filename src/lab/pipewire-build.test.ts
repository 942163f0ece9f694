import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import {
  backportsSourcesLine,
  backportsVersion,
  chooseBuild,
  debianMirror,
  missingLibraries,
  parsePipewireBuildChoice,
  pipewireBuildLayout,
  pipewireTreeEnv,
  privateAptOptions,
} from './pipewire-build.js';

// This machine's /etc/apt/sources.list.d/debian.sources (2026-12-01), comments kept.
const DEB822 = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

test('auto picks the host PipeWire for timer mode and backports for irq only when the host cannot', () => {
  const never = () => assert.fail('timer mode must not look at the plugin');
  assert.equal(chooseBuild('auto', 'timer', never), 'host');
  assert.equal(
    chooseBuild('auto', 'irq', () => false),
    'backports',
  );
  assert.equal(
    chooseBuild('auto', 'irq', () => true),
    'host',
  );
  assert.equal(
    chooseBuild('host', 'irq', () => false),
    'host',
  );
  assert.equal(chooseBuild('backports', 'timer', never), 'backports');
});

test('the mirror comes from the host apt sources: deb822 and one-line forms', () => {
  assert.deepEqual(debianMirror(DEB822), {
    uri: 'http://deb.debian.org/debian',
    signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg',
  });
  assert.deepEqual(
    debianMirror(
      '# comment\ndeb http://security.example/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n',
    ),
    { uri: 'http://mirror.example/debian', signedBy: '/k.gpg' },
  );
  assert.deepEqual(debianMirror('deb http://m.example/debian bookworm main\n'), {
    uri: 'http://m.example/debian',
    signedBy: null,
  });
  assert.equal(debianMirror('deb http://m.example/ubuntu noble main\n'), null);
  assert.equal(
    backportsSourcesLine({ uri: 'http://m.example/debian', signedBy: '/k.gpg' }),
    'deb [signed-by=/k.gpg] http://m.example/debian bookworm-backports main\n',
  );
});

test('the backports version is read from apt-cache madison; a missing package is named', () => {
  // Measured output (private lists of bookworm-backports only, 2026-12-01).
  const madison =
    '  pipewire | 1.4.2-1~bpo12+1 | http://deb.debian.org/debian bookworm-backports/main amd64 Packages\n';
  assert.equal(backportsVersion('pipewire', madison), '1.4.2-1~bpo12+1');
  assert.throws(
    () => backportsVersion('wireplumber', madison),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      e.code === 'not-found' &&
      /bookworm-backports has no package wireplumber/.test(e.message),
  );
  // A version from the host's own suite is not the backport.
  assert.throws(() =>
    backportsVersion(
      'pipewire',
      ' pipewire | 0.3.65-3+deb12u1 | http://deb.debian.org/debian bookworm/main amd64 Packages\n',
    ),
  );
});

test('the cache layout names a version pair with file-safe names; apt reads only private state', () => {
  const l = pipewireBuildLayout('/c', '1.4.2-1~bpo12+1', '0.5.8-1~bpo12+1');
  assert.equal(l.dir, '/c/pipewire-backports/1.4.2-1_bpo12_1+wp0.5.8-1_bpo12_1');
  assert.equal(l.root, `${l.dir}/root`);
  assert.equal(l.aptDir, '/c/pipewire-backports/apt');
  const o = privateAptOptions(l.aptDir).join(' ');
  assert.match(o, /Dir::Etc::sourcelist=\/c\/pipewire-backports\/apt\/sources.list/);
  assert.match(o, /Dir::Etc::sourceparts=- /);
  assert.match(o, /Dir::State::Lists=\/c\/pipewire-backports\/apt\/lists/);
});

test('the tree environment points programs, libraries, plugins, modules and scripts at the tree', () => {
  const env = pipewireTreeEnv('/t');
  assert.equal(env['PATH']?.split(':')[0], '/t/usr/bin');
  assert.ok(env['PATH']?.split(':').includes('/usr/bin'));
  assert.equal(env['LD_LIBRARY_PATH'], '/t/usr/lib/x86_64-linux-gnu');
  assert.equal(env['SPA_PLUGIN_DIR'], '/t/usr/lib/x86_64-linux-gnu/spa-0.2');
  assert.equal(env['PIPEWIRE_MODULE_DIR'], '/t/usr/lib/x86_64-linux-gnu/pipewire-0.3');
  assert.equal(env['WIREPLUMBER_MODULE_DIR'], '/t/usr/lib/x86_64-linux-gnu/wireplumber-0.5');
  assert.equal(env['WIREPLUMBER_DATA_DIR'], '/t/usr/share/wireplumber');
});

test('missing libraries: optional modules are ignored, the rest named once', () => {
  // ldd lines measured on the unpacked tree before liblua5.4-0 was added.
  const ldd = [
    '\tlibffado.so.2 => not found',
    '\tlibmysofa.so.1 => not found',
    '\tliblua5.4.so.0 => not found',
    '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)',
    '\tliblua5.4.so.0 => not found',
  ].join('\n');
  assert.deepEqual(missingLibraries(ldd), ['liblua5.4.so.0']);
});

test('--pipewire-build accepts auto, host, backports only', () => {
  assert.equal(parsePipewireBuildChoice('backports'), 'backports');
  assert.throws(
    () => parsePipewireBuildChoice('1.4'),
    /must be auto, host or backports, got "1.4"/,
  );
});
