import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupPortsByClient, JACK_PORT_IS_INPUT, JACK_PORT_IS_OUTPUT } from './jack-clients.js';
import { joinJackIncidents } from './jack-incidents.js';
import {
  jackConclusion,
  rankJackClients,
  renderJackIncidentLine,
  renderJackSection,
  summarizeDspLoad,
  type JackView,
} from './jack-view.js';

test('ports are grouped by the client part of their name; flags give the direction', () => {
  // system:* flags as jack_port_flags returned them on a dummy server here (Output/Input + Physical + Terminal).
  const ports = [
    { name: 'system:capture_1', flags: 0x16 },
    { name: 'system:capture_2', flags: 0x16 },
    { name: 'system:playback_1', flags: 0x15 },
    { name: 'simple:output1', flags: JACK_PORT_IS_OUTPUT },
    { name: 'simple:input', flags: JACK_PORT_IS_INPUT },
  ];
  assert.deepEqual(groupPortsByClient(ports), [
    { name: 'system', inputs: 1, outputs: 2 },
    { name: 'simple', inputs: 1, outputs: 1 },
  ]);
});

function view(logFile: string | null): JackView {
  const incidents = joinJackIncidents(
    [
      { atMs: 2000, delayedUs: 40, dspLoadPct: 58.94 },
      { atMs: 2001.3, delayedUs: 40, dspLoadPct: 12 },
      { atMs: 5000, delayedUs: 91, dspLoadPct: 3 },
    ],
    logFile
      ? [
          { atMs: 2010, event: { kind: 'client-late', client: 'lateone', state: 'Running' } },
          { atMs: 2010, event: { kind: 'client-late', client: 'lateone', state: 'Triggered' } },
          { atMs: 5003, event: { kind: 'driver-late', delayUs: 91, driver: 'timed' } },
        ]
      : [],
    { gapMs: 20, lagMs: 250, logGiven: logFile !== null },
  );
  const byClient = rankJackClients(incidents);
  return {
    server: {
      name: 'xrh-test',
      version: '1.9.21',
      sampleRate: 48000,
      bufferFrames: 64,
      periodMs: 4 / 3,
      realtime: true,
    },
    logFile,
    logEvents: logFile ? 3 : 0,
    xrunCallbacks: 3,
    incidents,
    byClient,
    driverIncidents: incidents.filter((i) => i.attribution === 'driver').length,
    unattributedIncidents: incidents.filter(
      (i) => i.attribution === 'unknown' || i.attribution === 'unnamed',
    ).length,
    dspLoad: summarizeDspLoad([1, 2, 58.94]),
    clients: [{ name: 'lateone', inputs: 0, outputs: 1, firstSeenMs: 0, goneMs: 6000 }],
    limitations: [],
  };
}

test('with the log: the incident line names the client, its cycles and states, the delay and load', () => {
  const v = view('/tmp/jackd.log');
  assert.equal(
    renderJackIncidentLine(v.incidents[0]!),
    'JACK xrun at 2.000 s: client `lateone` (2 cycle(s), Running/Triggered) was not finished; JACK delay 40 µs, DSP load 58.9 %, 2 xrun callbacks',
  );
  assert.match(
    renderJackIncidentLine(v.incidents[1]!),
    /no client was late; jackd's driver woke 91 µs late/,
  );
  assert.deepEqual(v.byClient, [{ client: 'lateone', incidents: 1, cycles: 2 }]);
  const c = jackConclusion(v).join(' ');
  assert.match(c, /2 xrun incident\(s\) from 3 xrun callback\(s\)/);
  assert.match(c, /waited for most often: `lateone` \(1 incident\(s\), 2 cycle\(s\)/);
  assert.match(c, /1 incident\(s\) with no client late/);
  const text = renderJackSection(v).join('\n');
  assert.match(text, /jackd log: \/tmp\/jackd\.log \(3 xrun line\(s\) read\)/);
  assert.match(text, /DSP load mean 20\.6 %, max 58\.9 %/);
  assert.match(text, /lateone \(0 in\/1 out, gone at 6\.0 s\)/);
});

test('without the log: the client is unknown and the report says how to get it', () => {
  const v = view(null);
  assert.match(
    renderJackIncidentLine(v.incidents[0]!),
    /the late client is unknown \(no --jack-log\)/,
  );
  assert.equal(v.byClient.length, 0);
  const c = jackConclusion(v).join(' ');
  assert.match(
    c,
    /2 incident\(s\) not attributed: JACK's API does not say which client was late; jackd prints it: .*--jack-log jackd\.log/,
  );
});

test('no xruns: one plain sentence', () => {
  const v = {
    ...view(null),
    incidents: [],
    xrunCallbacks: 0,
    byClient: [],
    unattributedIncidents: 0,
  };
  assert.deepEqual(jackConclusion(v), ['JACK (xrh-test, 64 frames at 48000 Hz): no xruns.']);
  assert.deepEqual(summarizeDspLoad([]), { samples: 0, meanPct: null, maxPct: null });
});
