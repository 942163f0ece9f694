// The QEMU command line and the guest kernel command line for one lab boot (platform-facts §5
// "Boot"): host `/` read-only over 9p as root, a writable 9p share for results, an ext4 scratch
// disk on virtio-blk, the inner command's stdout/stderr on two virtio serial ports.
// Pure: a plan in, argv out.
import { soundCardQemuArgs } from './sound-cards.js';
import type { SoundCardName } from './sound-cards.js';

export type Accel = 'kvm' | 'tcg';
export type PreemptModel = 'none' | 'voluntary' | 'full';

export interface BootPlan {
  accel: Accel;
  cpus: number;
  memMiB: number;
  kernelImage: string;
  /** An initramfs (Debian's modular kernels need one to reach the 9p root). */
  initrd?: string;
  /** Extra kernel arguments (e.g. xrunhunt.modroot= for a modular kernel). */
  extraKernelArgs?: string[];
  /** Absolute host path of lab/guest/init.sh (the same path in the guest: `/` is shared). */
  initPath: string;
  preempt: PreemptModel;
  threadirqs: boolean;
  /** Host folder shared writable as 9p tag `xrresults`. */
  resultsDir: string;
  /** Raw ext4 image attached as /dev/vda, or none. */
  scratchImage?: string;
  /** Host files receiving the guest's ports named xrunhunt.stdout and xrunhunt.stderr. */
  stdoutFile: string;
  stderrFile: string;
  /** Emulated sound cards to attach (snd-dummy is built in and needs no device). */
  cards?: readonly SoundCardName[];
}

/** 9p tags the guest init script mounts by name. */
export const ROOT_TAG = 'hostroot';
export const RESULTS_TAG = 'xrresults';
/**
 * 8 MiB kernel log: one XRUN dump is ≈5.3 KB and 30 s at 64/128 under IO wrote 6.1 MB; the
 * default 256 KiB buffer wraps in under a second (platform-facts §5).
 */
const LOG_BUF_LEN = '8M';
/** 256 KiB 9p messages: the measured root mount; smaller ones make node start noticeably slower. */
const NINEP_MSIZE = 262144;

// The guest kernel's command line.
export function kernelCommandLine(plan: BootPlan): string {
  return [
    'console=ttyS0',
    // Keep XRUN dumps off the serial console (they still reach /dev/kmsg).
    'loglevel=1',
    `log_buf_len=${LOG_BUF_LEN}`,
    // hrtimer mode serves 64-frame periods; the jiffies timer cannot (thousands of xruns/min idle).
    'snd_dummy.hrtimer=1',
    // The IO-APIC timer check measures the timer against a busy-wait: on a loaded host under
    // TCG it fails and panics the boot ("IO-APIC + timer doesn't work!"), as other VMs skip it.
    'no_timer_check',
    `preempt=${plan.preempt}`,
    ...(plan.threadirqs ? ['threadirqs'] : []),
    `root=${ROOT_TAG}`,
    'rootfstype=9p',
    `rootflags=trans=virtio,version=9p2000.L,msize=${NINEP_MSIZE},cache=loose`,
    'ro',
    `init=${plan.initPath}`,
    ...(plan.extraKernelArgs ?? []),
    // A guest panic ends the run at once instead of hanging until the timeout.
    'panic=-1',
  ].join(' ');
}

// The full qemu-system-x86_64 argv (without the binary).
export function qemuArgs(plan: BootPlan): string[] {
  const args = [
    '-accel',
    plan.accel,
    ...(plan.accel === 'kvm' ? ['-cpu', 'host'] : []),
    '-smp',
    String(plan.cpus),
    '-m',
    `${plan.memMiB}M`,
    '-kernel',
    plan.kernelImage,
    ...(plan.initrd ? ['-initrd', plan.initrd] : []),
    '-append',
    kernelCommandLine(plan),
    '-display',
    'none',
    '-nodefaults',
    '-no-reboot',
    '-monitor',
    'none',
    '-serial',
    'stdio',
    '-virtfs',
    `local,path=/,mount_tag=${ROOT_TAG},security_model=none,readonly=on,multidevs=remap`,
    '-virtfs',
    `local,path=${plan.resultsDir},mount_tag=${RESULTS_TAG},security_model=none,multidevs=remap`,
    '-device',
    'virtio-serial-pci',
    '-chardev',
    `file,id=xrstdout,path=${plan.stdoutFile}`,
    '-device',
    'virtserialport,chardev=xrstdout,nr=1,name=xrunhunt.stdout',
    '-chardev',
    `file,id=xrstderr,path=${plan.stderrFile}`,
    '-device',
    'virtserialport,chardev=xrstderr,nr=2,name=xrunhunt.stderr',
  ];
  if (plan.scratchImage) {
    args.push('-drive', `file=${plan.scratchImage},format=raw,if=virtio,cache=none`);
  }
  args.push(...soundCardQemuArgs(plan.cards ?? []));
  return args;
}
