#!/bin/sh
# xrunhunt lab guest init (runs as PID 1 inside QEMU; the host's `/` is the read-only 9p root).
# Mounts what a normal system has, the results share (9p tag xrresults) and the scratch disk
# (/dev/vda, ext4), follows /dev/kmsg into the results, runs the payload the host wrote to
# <results>/.lab/run.sh with its stdout/stderr on the virtio serial ports named
# xrunhunt.stdout and xrunhunt.stderr, records its exit code, then powers off. Recipe: platform-facts §5.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

say() { echo "xrunhunt-lab: $*" >/dev/console 2>/dev/null || echo "xrunhunt-lab: $*"; }
off() {
  sync
  echo o >/proc/sysrq-trigger 2>/dev/null
  sleep 5
  poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
# The root is read-only: writable places are tmpfs (/mnt too, for the mount points below),
# except a folder that holds this checkout (a clone in /tmp must stay visible).
# /root is left alone: the lab cache (~/.cache/xrunhunt/lab, test_lockup.ko) is usually there;
# HOME is a writable folder on /run instead.
for d in /run /var/tmp /dev/shm /tmp /mnt; do
  case "$0" in "$d"/*) continue ;; esac
  mount -t tmpfs -o mode=1777 tmpfs "$d"
done
HOME=/run/home
mkdir -p -m 700 "$HOME"
export HOME
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname xrunhunt-lab 2>/dev/null

# Debian's kernels (booted through lab/initramfs/init): their modules are in the lab cache,
# named by xrunhunt.modroot= (`modprobe -d`); the kernel's own module requests go the same way.
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    xrunhunt.modroot=*)
      MODPROBE_OPTIONS="-d ${arg#xrunhunt.modroot=}"
      export MODPROBE_OPTIONS
      echo "${0%/guest/init.sh}/initramfs/modprobe" >/proc/sys/kernel/modprobe
      ;;
  esac
done

R=/mnt/results
S=/mnt/scratch
mkdir -p "$R" "$S"
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xrresults "$R"; then
  say "error: cannot mount the results share (9p tag xrresults)"
  off
fi
if [ -b /dev/vda ]; then
  mount -t ext4 /dev/vda "$S" || say "warning: cannot mount the scratch disk /dev/vda"
fi

# The whole kernel log, from boot to power-off (dmesg --follow keeps reading after the
# ring buffer overwrote unread records, where a plain `cat /dev/kmsg` would stop at EPIPE).
# Kept on tmpfs and copied at the end: writing to the 9p share holds interrupts off
# (p9_virtio_request) and would show up as an offender.
dmesg --follow >/run/dmesg.txt 2>/dev/null &
DMESG=$!

# The ports are named by the host (virtserialport name=…); their /dev/vport<dev>p<port> names
# depend on the virtio device numbering, so look them up by name.
port() {
  for n in /sys/class/virtio-ports/*/name; do
    if [ "$(cat "$n" 2>/dev/null)" = "$1" ]; then
      d=${n%/name}
      echo "/dev/${d##*/}"
      return
    fi
  done
  echo /dev/console
}
OUT=$(port xrunhunt.stdout)
ERR=$(port xrunhunt.stderr)
# Modules the host chose for this kernel (sound card drivers), before the payload starts.
if [ -f "$R/.lab/modules.sh" ]; then
  sh "$R/.lab/modules.sh" >/dev/console 2>&1 || say "warning: loading modules failed"
fi
say "payload start"
sh "$R/.lab/run.sh" >"$OUT" 2>"$ERR" </dev/null
rc=$?
echo "$rc" >"$R/.lab/exit-code"
say "payload exit $rc"

sleep 0.5
kill "$DMESG" 2>/dev/null
wait "$DMESG" 2>/dev/null
cp /run/dmesg.txt "$R/dmesg.txt" 2>/dev/null
sync
umount "$S" 2>/dev/null
umount "$R" 2>/dev/null
off
