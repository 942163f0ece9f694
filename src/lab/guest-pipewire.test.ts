// The PipeWire guest set-up is shell text: these tests run its file-writing part with the real
// sh in a temp folder, check the generated configs, and syntax-check the whole run script.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PIPEWIRE_SINK_NAME,
  parsePipewireMode,
  parseSoundInterruptCounts,
  pipewireDropIn,
  playedFile,
  renderPipewireFiles,
  wavHeader,
  WIREPLUMBER_BLUETOOTH_DROPIN,
  WIREPLUMBER_MAIN_DROPIN,
} from './guest-pipewire.js';
import { renderRunScript } from './guest-script.js';
import { XrunhuntError } from '../errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-pw-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('the wav header describes 16-bit stereo PCM of the given length', () => {
  const h = Buffer.from(wavHeader(48000, 48000, 2));
  assert.equal(h.length, 44);
  assert.equal(h.toString('latin1', 0, 4), 'RIFF');
  assert.equal(h.readUInt32LE(4), 36 + 192000);
  assert.equal(h.toString('latin1', 8, 16), 'WAVEfmt ');
  assert.equal(h.readUInt16LE(20), 1);
  assert.equal(h.readUInt16LE(22), 2);
  assert.equal(h.readUInt32LE(24), 48000);
  assert.equal(h.readUInt32LE(28), 192000);
  assert.equal(h.readUInt16LE(32), 4);
  assert.equal(h.readUInt16LE(34), 16);
  assert.equal(h.toString('latin1', 36, 40), 'data');
  assert.equal(h.readUInt32LE(40), 192000);
});

test('timer mode keeps tsched, irq mode disables it; the sink plays to the given device', () => {
  const timer = pipewireDropIn({ mode: 'timer', device: 'hw:CARD=Dummy,DEV=0' });
  assert.match(timer, /^ {6}api\.alsa\.disable-tsched = false$/m);
  assert.match(timer, /^ {6}api\.alsa\.path = "hw:CARD=Dummy,DEV=0"$/m);
  assert.match(timer, new RegExp(`node\\.name = "${PIPEWIRE_SINK_NAME}"`));
  assert.match(timer, /default\.clock\.quantum = 256$/m);
  const irq = pipewireDropIn({ mode: 'irq', device: 'hw:1,0', periodFrames: 64, rateHz: 44100 });
  assert.match(irq, /^ {6}api\.alsa\.disable-tsched = true$/m);
  assert.match(irq, /^ {6}api\.alsa\.path = "hw:1,0"$/m);
  assert.match(irq, /^ {6}api\.alsa\.period-size = 64$/m);
  assert.match(irq, /default\.clock\.rate = 44100$/m);
});

test('the real sh writes the drop-ins byte for byte and a playable-size wav file', () => {
  const opts = { mode: 'irq' as const, device: 'hw:0,0', fileSeconds: 2 };
  const dir = join(tmp, 'pw');
  execFileSync('sh', ['-e', '-c', renderPipewireFiles(opts, dir).join('\n')]);
  const cfg = join(dir, 'config');
  assert.equal(
    readFileSync(join(cfg, 'pipewire/pipewire.conf.d/50-xrunhunt-lab.conf'), 'utf8'),
    pipewireDropIn(opts),
  );
  assert.equal(
    readFileSync(join(cfg, 'wireplumber/main.lua.d/51-xrunhunt-lab.lua'), 'utf8'),
    WIREPLUMBER_MAIN_DROPIN,
  );
  assert.equal(
    readFileSync(join(cfg, 'wireplumber/bluetooth.lua.d/51-xrunhunt-lab.lua'), 'utf8'),
    WIREPLUMBER_BLUETOOTH_DROPIN,
  );
  const wav = readFileSync(playedFile(opts, dir));
  assert.equal(wav.length, 44 + 2 * 48000 * 4);
  assert.deepEqual(wav.subarray(0, 44), Buffer.from(wavHeader(2 * 48000, 48000, 2)));
  assert.equal(statSync(join(dir, 'runtime')).mode & 0o777, 0o700);
});

test('WirePlumber drop-ins sort before its 90-enable-all.lua, which reads the settings', () => {
  assert.ok('51-xrunhunt-lab.lua' < '90-enable-all.lua');
  assert.match(WIREPLUMBER_MAIN_DROPIN, /^alsa_monitor\.enabled = false$/m);
  assert.match(WIREPLUMBER_BLUETOOTH_DROPIN, /\["with-logind"\] = false$/m);
});

test('the run script starts PipeWire before the pinned command and stops it after', () => {
  const s = renderRunScript({
    command: { kind: 'argv', argv: ['node', '/x/bin/xrunhunt.js', 'watch', '--duration', '30s'] },
    pipewire: { mode: 'timer', device: 'hw:CARD=Dummy,DEV=0' },
    pinCpu: 0,
  });
  execFileSync('sh', ['-n', '-c', s]);
  const pw = s.search(/^taskset -c 0 env \$pw_env PIPEWIRE_DEBUG=\S+ pipewire /m);
  const wp = s.search(/^taskset -c 0 env \$pw_env wireplumber /m);
  const inner = s.search(/^ {2}taskset -c 0 node \/x\/bin\/xrunhunt\.js watch --duration 30s$/m);
  const stop = s.search(/^touch "\$pw_stop"$/m);
  const copy = s.search(/^cp -a \/run\/xrunhunt-results\/\. /m);
  assert.ok(pw > 0 && wp > pw && inner > wp && stop > inner && copy > stop, s);
  assert.match(s, /^export XDG_RUNTIME_DIR=\/run\/xrunhunt-pipewire\/runtime$/m);
  // A server that never opened the card skips the command and fails the run.
  assert.match(s, /^if \[ -z "\$rc_pw" \]; then$/m);
  assert.match(s, /^else rc=\$rc_pw; fi$/m);
});

test('--pipewire accepts timer and irq only', () => {
  assert.equal(parsePipewireMode('timer'), 'timer');
  assert.equal(parsePipewireMode('irq'), 'irq');
  assert.throws(
    () => parsePipewireMode('tsched'),
    (e: unknown) => e instanceof XrunhuntError && /timer or irq, got "tsched"/.test(e.message),
  );
});

test('the sound interrupt counts at start and stop are read per card, summed over the CPUs', () => {
  const setup = [
    'mode: timer',
    '== sound interrupts at start',
    ' 29:          0      15638   PCI-MSI 81920-edge      xhci_hcd',
    ' 33:          0        117   PCI-MSI 81920-edge      snd_hda_intel:card0',
    '== sound interrupts at stop',
    ' 29:         12      31002   PCI-MSI 81920-edge      xhci_hcd',
    ' 33:          0        117   PCI-MSI 81920-edge      snd_hda_intel:card0',
    '== ALSA node (pipewire.log)',
    '[I][00015.968715] spa.alsa | snd_hda_intel 1 2 3',
  ].join('\n');
  assert.deepEqual(parseSoundInterruptCounts(setup, 'snd_hda_intel'), { start: 117, stop: 117 });
  assert.deepEqual(parseSoundInterruptCounts(setup, 'xhci_hcd'), { start: 15638, stop: 31014 });
  assert.deepEqual(parseSoundInterruptCounts(setup, 'ICH'), { start: null, stop: null });
  assert.deepEqual(parseSoundInterruptCounts('mode: timer\n', 'snd_hda_intel'), {
    start: null,
    stop: null,
  });
});
