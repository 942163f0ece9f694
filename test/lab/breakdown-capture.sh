#!/bin/sh
# Guest side of test/lab/breakdown-lab.test.ts: a flight-recorder capture (an own tracefs
# instance, mono clock, the scheduler/interrupt/softirq/hrtimer events a stock kernel has, a
# kprobe on __snd_pcm_xrun with a stack trigger, and the stack at each sound interrupt) while
# aplay plays 64/128 frames on the HDA card (10 s; 7 s with the hog) under dd write load (or
# xrunhunt play injects stalls, without the load).
# Writes NAME.txt (the trace) into the current folder (the lab's --out).
# usage: sh breakdown-capture.sh NAME [plain|fifo-hog|stall XRUNHUNT]
#   fifo-hog: aplay runs SCHED_FIFO 50 on CPU 0, and a busy loop named xrunhog runs SCHED_FIFO 90
#   on CPU 0 for about 50 ms, 12 times, 0.3 s apart.
#   stall: instead of aplay, `XRUNHUNT play` (the command line that runs xrunhunt in the guest)
#   at 256×2 frames with --inject-stall 20x5 (its writer thread xrunhunt-play sleeps 20 ms on
#   purpose, five times, 1 s apart); its --json report is written to NAME-play.json.
set -u
T=/sys/kernel/tracing
N=$1
MODE=${2:-plain}
I=$T/instances/xrunbreakdown
echo 'p:xrunbd/xrun __snd_pcm_xrun' >> $T/kprobe_events || { echo "kprobe failed"; exit 1; }
mkdir $I || exit 1
cleanup() {
  echo 0 > $I/tracing_on
  echo '!stacktrace' > $I/events/irq/irq_handler_entry/trigger 2>/dev/null
  echo '!stacktrace' > $I/events/xrunbd/xrun/trigger 2>/dev/null
  rmdir $I
  echo '-:xrunbd/xrun' >> $T/kprobe_events
}
trap cleanup EXIT
echo 4096 > $I/buffer_size_kb
# The stall's capture starts later (see below).
[ "$MODE" = stall ] && echo 0 > $I/tracing_on
echo mono > $I/trace_clock
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup irq/irq_handler_entry \
  irq/irq_handler_exit irq/softirq_entry irq/softirq_exit timer/hrtimer_expire_entry \
  timer/hrtimer_expire_exit xrunbd/xrun; do
  echo 1 > $I/events/$e/enable || echo "no $e"
done
# The stall's own timer: when the writer armed it and for when (the length it asked to sleep).
[ "$MODE" = stall ] && { echo 1 > $I/events/timer/hrtimer_start/enable || echo "no hrtimer_start"; }
echo stacktrace > $I/events/xrunbd/xrun/trigger
IRQ=$(grep -m1 snd /proc/interrupts | cut -d: -f1 | tr -d ' ')
[ -n "$IRQ" ] && echo "stacktrace if irq==$IRQ" > $I/events/irq/irq_handler_entry/trigger
echo "sound irq ${IRQ:-none}"
# trace_pipe ends (EOF) once tracing is off after it read something: start reading when it is on.
P=
if [ "$MODE" != stall ]; then
  cat $I/trace_pipe > "$N.txt" &
  P=$!
fi
# The write load, except for the stall (its XRUNs are the injected ones, not the load's).
D=
if [ "$MODE" != stall ]; then
  ( dd if=/dev/zero of=/mnt/scratch/f bs=1M count=300 conv=fsync 2>/dev/null ) &
  D=$!
fi
if [ "$MODE" = fifo-hog ]; then
  # A copy of sh, so that the busy loop's comm is xrunhog. The controller runs on CPU 1, where
  # the hog cannot starve it: 1 s into the playback, it starts the hog at SCHED_FIFO 90 on
  # CPU 0, waits until it runs (an exec under TCG can be slow; at most 2 s); the hog first
  # sleeps 0.1 s (its page faults are over by then) and then spins until it is stopped about
  # 50 ms later. The sound interrupt goes to CPU 0 too (the VM is thrown away afterwards), so
  # the hog holds everything aplay needs. (Waiting for aplay with pgrep first was less reliable
  # under load: one run started no hog at all.)
  [ -n "$IRQ" ] && echo 0 > /proc/irq/$IRQ/smp_affinity_list
  cp /bin/sh /mnt/scratch/xrunhog
  taskset -c 1 sh -c 'sleep 1; for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
      taskset -c 0 chrt -f 90 /mnt/scratch/xrunhog -c "sleep 0.1; while :; do :; done" & H=$!
      n=0; while [ "$(cat /proc/$H/comm 2>/dev/null)" != xrunhog ] && [ $n -lt 400 ]; do
        n=$((n+1)); sleep 0.005; done
      sleep 0.15; kill $H; wait $H 2>/dev/null; sleep 0.3
    done' &
  # aplay can end early under SCHED_FIFO on QEMU's HDA (a write error): play again until 7 s.
  END=$(( $(date +%s) + 7 ))
  while [ "$(date +%s)" -lt "$END" ]; do
    chrt -f 50 taskset -c 0 aplay -D hw:0,0 --period-size=64 --buffer-size=128 -f S16_LE \
      -r 48000 -c 2 -d 3 /dev/zero 2>> "$N-aplay.err"
  done
elif [ "$MODE" = stall ]; then
  # Tracing starts when the writer thread exists: node and tsx take one to three minutes to
  # start under TCG on a loaded host, and tracing that would only slow them down. The first
  # stall comes 1 s after the stream started (--inject-stall's warm-up).
  # $3 is a command line (node, its tsx loader, main.ts): split into words on purpose.
  # shellcheck disable=SC2086
  $3 play --device hw:0,0 --period 256 --periods 2 --duration 7s --inject-stall 20x5 --json \
    > "$N-play.json" 2> "$N-play.err" &
  PL=$!
  n=0
  # Any process's threads: $PL is the shell that runs node, not node itself.
  until grep -qsx xrunhunt-play /proc/[0-9]*/task/[0-9]*/comm || [ $n -ge 3000 ]; do
    n=$((n+1)); sleep 0.1
  done
  echo 1 > $I/tracing_on
  cat $I/trace_pipe > "$N.txt" &
  P=$!
  echo "tracing from $(cut -d' ' -f1 /proc/uptime) s (after $n polls)"
  wait $PL
else
  aplay -D hw:0,0 --period-size=64 --buffer-size=128 -f S16_LE -r 48000 -c 2 -d 10 /dev/zero \
    2> "$N-aplay.err"
fi
sleep 0.5
kill $P $D 2>/dev/null  # D is empty for the stall
wait
rm -f /mnt/scratch/xrunhog
echo "lines $(wc -l < "$N.txt") xruns $(grep -c ' xrun: ' "$N.txt")"
