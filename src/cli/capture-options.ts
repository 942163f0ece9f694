// What the kernel is asked to print and how xrunhunt reads it: the same two options, with the
// same words and allowed values, on every command that runs the lifecycle (session, watch,
// stress).
import type { OptionSpecs } from './command.js';

/** `--mask` (the xrun_debug mask set during the run) and `--capture` (the capture backend). */
export const KERNEL_CAPTURE_OPTIONS = {
  mask: {
    type: 'string',
    valueName: 'MASK',
    default: '3',
    description: 'xrun_debug mask to set (1 header, 2 stack dump, 3 both; 0 = leave it alone)',
  },
  capture: {
    type: 'string',
    choices: ['auto', 'xrun_debug', 'kprobe', 'none', 'kmsg', 'journalctl', 'dmesg'],
    valueName: 'HOW',
    default: 'auto',
    description: 'kernel capture: auto, xrun_debug (kernel log), kprobe, or none (userspace only)',
  },
} as const satisfies OptionSpecs;

/**
 * `--recorder` (session, watch): the flight recorder, a tracefs instance with scheduler, IRQ
 * and timer events and its own xrun kprobe, kept as windows before each XRUN (docs/recorder.md).
 */
export const RECORDER_OPTIONS = {
  recorder: {
    type: 'string',
    choices: ['off', 'auto', 'on'],
    valueName: 'MODE',
    default: 'off',
    description:
      'flight recorder (scheduler/IRQ trace before each XRUN, recorder.txt): off (default while its overhead is measured), auto (on where root, tracefs and kprobe events allow), on (required)',
  },
} as const satisfies OptionSpecs;
