// Chooses KVM or TCG. `/dev/kvm` existing proves nothing (on these machines it is a nested
// software hypervisor whose guests fail or hang, platform-facts §5): KVM is trusted only
// after a short test boot under a timeout succeeded. The verdict is cached per host boot.
import { accessSync, constants, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Accel } from './qemu-command.js';
import type { GuestKernel } from './run-guest.js';
import { runInGuest } from './run-guest.js';

export type AccelRequest = Accel | 'auto';

export interface AccelChoice {
  accel: Accel;
  /** Why, in words: shown by `lab run` and `lab status`. */
  reason: string;
}

interface ProbeRecord {
  bootId: string;
  bzImage: string;
  ok: boolean;
  reason: string;
  at: string;
}

/**
 * A KVM guest reaches init in well under a second; under the broken nested hypervisor it
 * either fails at once or hangs. 20 s also covers a slow but working KVM host.
 */
const PROBE_TIMEOUT_MS = 20_000;

// Whether /dev/kvm exists and is usable by this user (without a test boot).
export function kvmDeviceStatus(): { usable: boolean; reason: string } {
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    return { usable: true, reason: '/dev/kvm is accessible' };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return {
      usable: false,
      reason:
        code === 'ENOENT' ? '/dev/kvm does not exist' : `/dev/kvm is not accessible (${code})`,
    };
  }
}

function hostBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

// Reads the cached probe verdict for this host boot and kernel, if any.
export function cachedKvmProbe(cacheRoot: string, bzImage?: string): ProbeRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(join(cacheRoot, 'kvm-probe.json'), 'utf8')) as ProbeRecord;
    if (rec.bootId !== hostBootId()) return undefined;
    if (bzImage !== undefined && rec.bzImage !== bzImage) return undefined;
    return rec;
  } catch {
    return undefined;
  }
}

// Resolves `--accel auto|kvm|tcg` to the accelerator to use, probing KVM once per host boot.
export async function chooseAccel(
  request: AccelRequest,
  kernel: GuestKernel,
  cacheRoot: string,
  signal: AbortSignal,
): Promise<AccelChoice> {
  if (request === 'tcg') return { accel: 'tcg', reason: 'TCG requested (--accel tcg)' };
  if (request === 'kvm') return { accel: 'kvm', reason: 'KVM requested (--accel kvm), not probed' };
  const dev = kvmDeviceStatus();
  if (!dev.usable) return { accel: 'tcg', reason: `TCG: ${dev.reason}` };
  const cached = cachedKvmProbe(cacheRoot, kernel.bzImage);
  if (cached) {
    return cached.ok
      ? { accel: 'kvm', reason: `KVM: a test boot succeeded (${cached.at})` }
      : { accel: 'tcg', reason: `TCG: ${cached.reason} (probed ${cached.at})` };
  }
  const sink = new PassThrough();
  sink.resume();
  let ok = false;
  let reason: string;
  try {
    const r = await runInGuest({
      kernel,
      command: { kind: 'shell', line: 'true' },
      accel: 'kvm',
      cpus: 1,
      memMiB: 256,
      timeoutMs: PROBE_TIMEOUT_MS,
      scratchBytes: 0,
      preempt: 'voluntary',
      threadirqs: false,
      signal,
      stdout: sink,
      stderr: sink,
      note: () => undefined,
    });
    rmResults(r.resultsDir);
    ok = r.exitCode === 0;
    const kvmError = r.consoleTail.find((l) => /KVM|kvm/.test(l));
    reason = ok
      ? 'a KVM test boot succeeded'
      : r.timedOut
        ? `a KVM test boot hung for ${PROBE_TIMEOUT_MS / 1000} s although /dev/kvm exists`
        : `a KVM test boot failed although /dev/kvm exists${kvmError ? ` (${kvmError.trim()})` : ''}`;
  } catch (err) {
    reason = `a KVM test boot could not start (${(err as Error).message})`;
  }
  if (signal.aborted) return { accel: 'tcg', reason: 'interrupted during the KVM probe' };
  const rec: ProbeRecord = {
    bootId: hostBootId(),
    bzImage: kernel.bzImage,
    ok,
    reason,
    at: new Date().toISOString(),
  };
  try {
    mkdirSync(cacheRoot, { recursive: true });
    writeFileSync(join(cacheRoot, 'kvm-probe.json'), JSON.stringify(rec, null, 2) + '\n');
  } catch {
    // an unwritable cache only costs another probe next time
  }
  return ok
    ? { accel: 'kvm', reason: `KVM: ${reason}` }
    : { accel: 'tcg', reason: `TCG: ${reason}` };
}

// The probe's temp folder (its results inside) is of no use to anyone.
function rmResults(dir: string): void {
  rmSync(join(dir, '..'), { recursive: true, force: true });
}
