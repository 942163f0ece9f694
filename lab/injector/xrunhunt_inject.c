// SPDX-License-Identifier: GPL-2.0
/*
 * xrunhunt_inject: the lab's ground-truth offender for kernels without CONFIG_TEST_LOCKUP
 * (Debian's own kernels). It takes test_lockup's parameters (time_nsecs, cooldown_nsecs,
 * iterations, disable_irq | disable_preempt | disable_softirq; reacquire_locks is accepted and
 * ignored) so `xrunhunt lab --inject lockup:<ms>[:mode]` drives both the same way: in the
 * insmod'ing task it holds interrupts (or preemption, or softirqs) off for time_nsecs by busy
 * waiting, turns them back on in xrunhunt_inject_unlock() — where the late timer interrupt
 * lands, so that function is what XRUN stacks name — sleeps cooldown_nsecs, repeats, and then
 * fails with EAGAIN so nothing stays loaded (like test_lockup).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/sched/signal.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/preempt.h>

static unsigned long time_nsecs = 10000000;
module_param(time_nsecs, ulong, 0400);
MODULE_PARM_DESC(time_nsecs, "length of one section with interrupts/preemption/softirqs off, ns");

static unsigned long cooldown_nsecs = 50000000;
module_param(cooldown_nsecs, ulong, 0400);
MODULE_PARM_DESC(cooldown_nsecs, "sleep between sections, ns");

static unsigned int iterations = 1;
module_param(iterations, uint, 0400);
MODULE_PARM_DESC(iterations, "sections per load");

static bool hold_irq;
module_param_named(disable_irq, hold_irq, bool, 0400);
MODULE_PARM_DESC(disable_irq, "hold local interrupts off");

static bool hold_preempt;
module_param_named(disable_preempt, hold_preempt, bool, 0400);
MODULE_PARM_DESC(disable_preempt, "hold preemption off");

static bool hold_softirq;
module_param_named(disable_softirq, hold_softirq, bool, 0400);
MODULE_PARM_DESC(disable_softirq, "hold softirqs off");

static bool reacquire_locks;
module_param(reacquire_locks, bool, 0400);
MODULE_PARM_DESC(reacquire_locks, "accepted for test_lockup compatibility; no locks are taken");

/*
 * Busy for nsecs with the chosen context off; noinline so stacks name it. The clock is read
 * from the clocksource directly: local_clock() is clamped to the last tick when the TSC is not
 * stable (as under QEMU/TCG), and with interrupts off the tick never comes — it would spin forever.
 */
static noinline void xrunhunt_inject_spin(unsigned long nsecs)
{
	u64 end = ktime_get_mono_fast_ns() + nsecs;

	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

/* Turns the held-off context back on: a pending timer interrupt is taken right here. */
static noinline void xrunhunt_inject_unlock(void)
{
	if (hold_irq)
		local_irq_enable();
	else if (hold_softirq)
		local_bh_enable();
	else if (hold_preempt)
		preempt_enable();
}

/* Turns the chosen context off (irqs, softirqs or preemption). */
static noinline void xrunhunt_inject_lock(void)
{
	if (hold_irq)
		local_irq_disable();
	else if (hold_softirq)
		local_bh_disable();
	else if (hold_preempt)
		preempt_disable();
}

static int __init xrunhunt_inject_init(void)
{
	unsigned int i;

	if (hold_irq + hold_preempt + hold_softirq != 1) {
		pr_err("xrunhunt_inject: set exactly one of disable_irq, disable_preempt, disable_softirq\n");
		return -EINVAL;
	}
	if (time_nsecs > NSEC_PER_SEC) {
		pr_err("xrunhunt_inject: time_nsecs above 1 s would freeze the machine\n");
		return -EINVAL;
	}
	for (i = 0; i < iterations; i++) {
		if (signal_pending(current))
			break;
		xrunhunt_inject_lock();
		xrunhunt_inject_spin(time_nsecs);
		xrunhunt_inject_unlock();
		if (cooldown_nsecs)
			usleep_range(cooldown_nsecs / NSEC_PER_USEC,
				     cooldown_nsecs / NSEC_PER_USEC + 100);
	}
	return -EAGAIN;
}

module_init(xrunhunt_inject_init);
MODULE_DESCRIPTION("xrunhunt lab ground-truth offender (test_lockup-compatible parameters)");
MODULE_LICENSE("GPL");
