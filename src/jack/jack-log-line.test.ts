import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseJackLogLine } from './jack-log-line.js';

// Real jackd2 1.9.21 output (test/fixtures/jack/README.md says where it was recorded).
const FIXTURE = readFileSync(
  new URL('../../test/fixtures/jack/jackd-dummy-1.9.21.log', import.meta.url),
  'utf8',
);

test('the recorded jackd output: every late-client and late-driver line is read, nothing else', () => {
  const events = FIXTURE.split('\n')
    .map(parseJackLogLine)
    .filter((e) => e !== null);
  const late = events.filter((e) => e.kind === 'client-late');
  const driver = events.filter((e) => e.kind === 'driver-late');
  assert.equal(late.length, 11);
  assert.equal(driver.length, 10);
  assert.equal(events.length, 21, 'banner and "Process error" lines are not xruns');
  assert.deepEqual(late[0], { kind: 'client-late', client: 'lateone', state: 'Triggered' });
  assert.deepEqual(driver[0], { kind: 'driver-late', delayUs: 10, driver: 'timed' });
});

test('a client still running, a client name with spaces, the ALSA driver', () => {
  // Seen in the same recording session (state Running: it woke but did not finish).
  assert.deepEqual(
    parseJackLogLine('JackEngine::XRun: client = lateone was not finished, state = Running'),
    { kind: 'client-late', client: 'lateone', state: 'Running' },
  );
  assert.deepEqual(
    parseJackLogLine(
      'JackEngine::XRun: client = PulseAudio JACK Sink was not finished, state = Triggered',
    ),
    { kind: 'client-late', client: 'PulseAudio JACK Sink', state: 'Triggered' },
  );
  // jack_alsa.so's format string is "**** alsa_pcm: xrun of at least %.3f msecs".
  assert.deepEqual(parseJackLogLine('**** alsa_pcm: xrun of at least 2.345 msecs'), {
    kind: 'driver-late',
    delayUs: 2345,
    driver: 'alsa',
  });
  assert.deepEqual(parseJackLogLine('Process: graph not finished!'), { kind: 'graph-late' });
  assert.equal(parseJackLogLine('JackAudioDriver::ProcessGraphAsyncMaster: Process error'), null);
  assert.equal(parseJackLogLine(''), null);
});
