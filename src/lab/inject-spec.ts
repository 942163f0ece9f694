// `--inject lockup:<ms>[:irq|:preempt|:softirq]`: a ground-truth offender loaded in the guest
// while the inner command runs. Pure: parses the option and renders the module parameters.
import { UsageError } from '../errors.js';

export type LockupMode = 'irq' | 'preempt' | 'softirq';

export interface LockupInjection {
  kind: 'lockup';
  /** How long each section holds interrupts / preemption / softirqs off, in ms. */
  sectionMs: number;
  mode: LockupMode;
  /**
   * Start with the injector waiting (`--inject-paused`): the guest script resumes it by creating
   * the file in $XRUNHUNT_LAB_INJECT_GO and pauses it again by removing that file, so checks
   * with and without the offender share one boot.
   */
  startPaused?: boolean;
}

/**
 * Pause between sections (platform-facts §5a recipe: 50 ms). test_lockup busy-waits through it,
 * so the player still needs a preemptible kernel (preempt=full) to keep up in between.
 */
export const LOCKUP_COOLDOWN_MS = 50;
/**
 * One insmod runs its sections for about this long, then "fails" with EAGAIN and the loop
 * loads it again; short enough that the injector stops within ~2 s of the inner command.
 */
export const LOCKUP_INSMOD_SPAN_MS = 2000;
/** test_lockup rejects nothing below the soft-lockup threshold, but >1 s sections would freeze the guest. */
const MAX_SECTION_MS = 1000;

const MODES: readonly LockupMode[] = ['irq', 'preempt', 'softirq'];

// Parses the option value; the error says which part was wrong and shows the accepted form.
export function parseInjectSpec(text: string): LockupInjection {
  const form = 'lockup:<ms>[:irq|:preempt|:softirq] (e.g. lockup:10:irq)';
  const parts = text.split(':');
  if (parts[0] !== 'lockup' || parts.length < 2 || parts.length > 3) {
    throw new UsageError(`--inject expects ${form}, got "${text}"`);
  }
  const ms = Number(parts[1]);
  if (!/^\d+(\.\d+)?$/.test(parts[1] ?? '') || !(ms > 0) || ms > MAX_SECTION_MS) {
    throw new UsageError(
      `--inject lockup section must be a number of milliseconds between 0 and ${MAX_SECTION_MS}, got "${parts[1] ?? ''}" (expected ${form})`,
    );
  }
  const mode = (parts[2] ?? 'irq') as LockupMode;
  if (!MODES.includes(mode)) {
    throw new UsageError(`--inject lockup mode must be irq, preempt or softirq, got "${parts[2]}"`);
  }
  return { kind: 'lockup', sectionMs: ms, mode };
}

// The `insmod test_lockup.ko` parameters for one loop round (§5a working recipe).
export function lockupModuleParams(spec: LockupInjection): string[] {
  const iterations = Math.max(
    1,
    Math.round(LOCKUP_INSMOD_SPAN_MS / (spec.sectionMs + LOCKUP_COOLDOWN_MS)),
  );
  const flag = { irq: 'disable_irq=1', preempt: 'disable_preempt=1', softirq: 'disable_softirq=1' }[
    spec.mode
  ];
  return [
    `time_nsecs=${Math.round(spec.sectionMs * 1e6)}`,
    `cooldown_nsecs=${LOCKUP_COOLDOWN_MS * 1_000_000}`,
    `iterations=${iterations}`,
    'reacquire_locks=1',
    flag,
  ];
}
