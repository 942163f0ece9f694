// The fake /proc, /sys and /dev settings the `try` knobs change, laid out and worded as on
// a 6.1 kernel (plain files: they show the layout and text, not the kernel's side effects).
import { createFakeSystem, type FakeSystem } from './fake-proc.js';

/** The originals every knob test expects back. */
export const TRY_ORIGINALS = {
  scheduler: '[mq-deadline] kyber bfq none\n',
  dirtyBytes: '0\n',
  dirtyRatio: '20\n',
  dirtyBackgroundBytes: '67108864\n',
  swappiness: '60\n',
  affinity: '0-3\n',
  governor: 'schedutil\n',
  thp: 'always [madvise] never\n',
};

/** A machine with one disk, 4 CPUs with cpufreq, an HDA card on IRQ 33. */
export function createTryKnobTree(): FakeSystem {
  const o = TRY_ORIGINALS;
  return createFakeSystem({
    proc: {
      'sys/vm/dirty_bytes': o.dirtyBytes,
      'sys/vm/dirty_ratio': o.dirtyRatio,
      'sys/vm/dirty_background_bytes': o.dirtyBackgroundBytes,
      'sys/vm/dirty_background_ratio': '0\n',
      'sys/vm/swappiness': o.swappiness,
      interrupts:
        '            CPU0       CPU1       CPU2       CPU3\n' +
        '  0:         42          0          0          0   IO-APIC   2-edge      timer\n' +
        ' 33:          0        412          0          0   IR-PCI-MSI 442368-edge      snd_hda_intel:card0\n' +
        ' 34:       9000          0          0          0   IR-PCI-MSI 327680-edge      xhci_hcd\n',
      'irq/33/smp_affinity_list': o.affinity,
      'irq/34/smp_affinity_list': o.affinity,
    },
    sys: {
      'block/sda/queue/scheduler': o.scheduler,
      'devices/system/cpu/online': '0-3\n',
      ...Object.fromEntries(
        [0, 1, 2, 3].flatMap((c) => [
          [`devices/system/cpu/cpu${c}/cpufreq/scaling_governor`, o.governor],
          [
            `devices/system/cpu/cpu${c}/cpufreq/scaling_available_governors`,
            'performance powersave schedutil\n',
          ],
        ]),
      ),
      'kernel/mm/transparent_hugepage/enabled': o.thp,
    },
    dev: { cpu_dma_latency: '' },
  });
}

/** The --proc-root/--sys-root/--dev-root arguments that point a `try` run at `tree`. */
export function tryRootArgs(tree: FakeSystem): string[] {
  return ['--proc-root', tree.procRoot, '--sys-root', tree.sysRoot, '--dev-root', tree.devRoot];
}
