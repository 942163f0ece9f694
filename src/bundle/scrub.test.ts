import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson } from './test-fixtures.js';
import { scrubBundle, scrubText } from './scrub.js';
import { validateBundle } from './validate.js';

const known = { hostnames: ['studio-pc', 'studio-pc.lan'], users: ['alice'] };

test('home paths, root home, addresses and known names become placeholders', () => {
  assert.equal(scrubText('log at /home/alice/x.log', known), 'log at /home/<user>/x.log');
  assert.equal(scrubText('cwd /root/work', known), 'cwd /home/<user>/work');
  assert.equal(
    scrubText('peer 192.168.1.20:4713 via fe80::1c2b:3aff:fe4d:5e6f', known),
    'peer <ip>:4713 via <ip>',
  );
  assert.equal(scrubText('mac 00:1b:21:3a:4f:9c up', known), 'mac <mac> up');
  assert.equal(
    scrubText('studio-pc.lan and studio-pc said hi to alice', known),
    '<host> and <host> said hi to <user>',
  );
  assert.equal(scrubText('build host builder01.corp.example.com'), 'build host <host>');
});

test('kernel text that merely looks similar is left alone', () => {
  const s =
    'at 12:34:56 snd_hda_intel 0000:00:1f.3: azx_interrupt [snd_hda_codec] 6.1.0-28-amd64 /proc/asound/card0 /usr/lib/alice-tools';
  // "alice" inside a longer name and PCI addresses / times / versions must survive.
  assert.equal(scrubText(s, { hostnames: [], users: ['alice'] }), s);
  assert.equal(scrubText('rootfs mounted on /rooted'), 'rootfs mounted on /rooted');
});

test('scrubBundle rewrites strings everywhere but identifiers, and marks the bundle', () => {
  const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
  b.scrubbed = false;
  b.params!.device = 'plug:/home/alice/.asoundrc-dev';
  b.warnings.push('kernel log from studio-pc (10.0.0.7) at /root/kern.log');
  b.host.cards[0]!.name = 'alice USB headset';
  const before = JSON.stringify(b);
  const s = scrubBundle(b, known);
  assert.equal(JSON.stringify(b), before, 'input not modified');
  assert.equal(s.scrubbed, true);
  assert.equal(s.params!.device, 'plug:/home/<user>/.asoundrc-dev');
  assert.equal(s.warnings.at(-1), 'kernel log from <host> (<ip>) at /home/<user>/kern.log');
  assert.equal(s.host.cards[0]!.name, '<user> USB headset');
  assert.equal(s.machineId, b.machineId);
  assert.equal(s.createdAt, b.createdAt);
  assert.deepEqual(s.events, b.events);
  assert.doesNotThrow(() => validateBundle(s));
});
