#!/bin/sh
# Per-card measurement for docs/lab.md §Sound cards, run in the lab guest:
#   xrunhunt lab exec --card hda --out DIR -- sh $PWD/test/lab/cards-measure.sh Intel
# Plays silence with aplay at 64/128/256 frames (buffer = 2 periods, 20 s each, idle), then at
# 128 under a buffered write load on the scratch disk, with xrun_debug=3; marker lines in the
# kernel log (xrh-mark <phase>) let the host split dmesg.txt per phase. Then asks libasound
# whether the card can run without period interrupts (cards-period-wakeup.mjs).
ID=${1:?card id, e.g. Intel}
SECS=${2:-20}
HERE=$(dirname "$0")
cat /proc/asound/cards
X=/proc/asound/$ID/pcm0p/xrun_debug
echo 3 > "$X" || { echo "no $X" >&2; exit 3; }
play() {
  aplay -D "hw:CARD=$ID,DEV=0" -t raw -f S16_LE -r 48000 -c 2 --period-size="$1" \
    --buffer-size=$(($1 * 2)) -d "$SECS" /dev/zero 2> "aplay-$2.err"
  echo "$2: aplay rc=$? underruns=$(grep -c underrun "aplay-$2.err")"
}
for p in 64 128 256; do
  echo "xrh-mark idle-$p" > /dev/kmsg
  play "$p" "idle-$p"
done
echo "xrh-mark write-128" > /dev/kmsg
(
  while :; do dd if=/dev/zero of=/mnt/scratch/load bs=1M count=256 conv=fsync 2>/dev/null; done
) &
LOAD=$!
play 128 write-128
kill "$LOAD"; wait "$LOAD" 2>/dev/null
echo "xrh-mark end" > /dev/kmsg
echo 0 > "$X"
rm -f /mnt/scratch/load
cat /proc/interrupts | grep -i -E "hda|xhci|intel8x0|snd|CPU" | head -8
node "$HERE/cards-period-wakeup.mjs" "hw:CARD=$ID,DEV=0"
