// Which watched streams may have their /proc/asound/…/status read during a watch. Reading it
// runs snd_pcm_status64 → snd_pcm_update_hw_ptr on a running stream, so the reader can be the
// task that detects an XRUN (its own stack is then captured, and the real owner's is not):
// measured in the lab with PipeWire (timer mode), 3 of 799 dumps came from watch's own reads.
// The kernel does not export whether a stream has period wake-ups (no_period_wakeup is not in
// hw_params or sw_params under /proc), so the rule is by what the read is for: the counters
// are only needed for underruns the kernel will not report (stop_threshold above the buffer)
// or when nothing captures the kernel's XRUNs at all (neither a kernel log nor `--recorder on`,
// whose probe on __snd_pcm_xrun sees every one: with --capture none --recorder on, a PipeWire
// watch in the lab once detected one of PipeWire's XRUNs in its own status read). Every other
// stream is followed through hw_params, which shows only the configuration (or "closed") and
// does not touch the stream. Pure.
import type { WatchedStream } from './running-streams.js';

export interface StatusPollDecision {
  /** Read `status` (counters, owner) at every poll; otherwise only `hw_params` (open/closed). */
  readStatus: boolean;
  reason: string;
}

/** Whether the kernel's XRUNs are captured: a kernel log capture, or `--recorder on`
 * (`auto` may turn itself off after the poll policy is decided, so it does not count). */
export function kernelXrunsCaptured(capture: string, recorder: string | undefined): boolean {
  return capture !== 'none' || recorder === 'on';
}

// Decides, per stream, whether the poller reads its status file; `kernelCapture`: a kernel log
// capture or the flight recorder (`--recorder on`) sees the kernel's XRUNs.
export function statusPollDecision(
  stream: Pick<WatchedStream, 'kernel'>,
  kernelCapture: boolean,
): StatusPollDecision {
  if (!stream.kernel.reports) {
    return {
      readStatus: true,
      reason: 'the kernel does not report its underruns: only its own counters show them',
    };
  }
  if (!kernelCapture) {
    return {
      readStatus: true,
      reason:
        'nothing captures the kernel XRUNs (--capture none, no --recorder on): its counters are the only view',
    };
  }
  return {
    readStatus: false,
    reason:
      'the kernel reports its underruns: its status is not read while watching (a status read updates the hardware pointer and could make watch the task that detects the XRUN); hw_params shows when it closes',
  };
}
