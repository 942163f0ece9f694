import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  alsaFormatLines,
  interruptCount,
  interruptRate,
  procParams,
  setupSection,
} from './pipewire-build-evidence.js';

const FIX = new URL('../../test/fixtures/pipewire-build/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIX), 'utf8');

test("PipeWire 1.4's set-format line says tsched:0 in IRQ mode (lab run on HDA)", () => {
  assert.deepEqual(alsaFormatLines(fixture('irq-hda-pipewire-log-format.txt')), [
    { bufferFrames: 8192, periodFrames: 256, periods: 32, batch: false, tsched: false },
  ]);
  assert.deepEqual(alsaFormatLines('[W] nothing here\n'), []);
});

test('hw_params and sw_params sections of pipewire-setup.txt', () => {
  const setup = fixture('irq-hda-pipewire-setup.txt');
  const hw = procParams(setupSection(setup, 'hw_params'));
  const sw = procParams(setupSection(setup, 'sw_params'));
  assert.equal(hw['period_size'], '256');
  assert.equal(hw['buffer_size'], '8192');
  assert.equal(sw['avail_min'], '7936');
  assert.equal(sw['stop_threshold'], '8192');
  assert.equal(sw['period_size'], undefined, 'sections do not run into each other');
  assert.equal(setupSection(setup, 'nope'), '');
});

// The HDA line of the guest's /proc/interrupts, read 4 s apart in IRQ mode (lab run, 2 CPUs).
const BEFORE = `           CPU0       CPU1
  0:         41          0   IO-APIC   2-edge      timer
 26:          0       2088   PCI-MSI 81920-edge      snd_hda_intel:card2
NMI:          0          0   Non-maskable interrupts
`;
const AFTER = BEFORE.replace('2088', '3074');

test('interrupt count and rate of one card against the period rate', () => {
  assert.equal(interruptCount(BEFORE, /snd_hda_intel/), 2088);
  assert.equal(interruptCount(BEFORE, /xhci_hcd/), null);
  const r = interruptRate(BEFORE, AFTER, 4, /snd_hda_intel/, 48000 / 256);
  assert.ok(r);
  assert.equal(r.perSecond, 246.5);
  assert.ok(Math.abs(r.ofPeriodRate - 246.5 / 187.5) < 1e-9);
  assert.equal(interruptRate(BEFORE, AFTER, 0, /snd_hda_intel/, 187.5), null);
});
