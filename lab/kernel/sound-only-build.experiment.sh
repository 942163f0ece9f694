#!/bin/bash
# EXPERIMENT (issue 29, "the one compile left"), not used by the lab yet: builds only sound/ and
# test_lockup against Debian's headers with xrun_debug on. Findings: docs/lab-sound-only-build.md.
# Measurement experiment (issue 29, "The one compile left"): build only the ALSA modules the lab
# needs from Debian's linux-source-6.1, out of tree, against a copy of Debian's linux-headers with
# CONFIG_SND_DEBUG / CONFIG_SND_PCM_XRUN_DEBUG turned on, plus lib/test_lockup.c; then lay out a
# module root (Debian's modules with kernel/sound replaced by ours) that the guest's
# `modprobe -d` can use.
#
#   bash build.sh            # everything (idempotent: sources and headers are reused)
#   JOBS=2 bash build.sh     # parallel jobs (default 2)
#
# Output (all under $W):
#   src/linux-source-6.1/{sound,lib/test_lockup.c}   extracted from the tarball
#   headers/                 copy of linux-headers-$REL with the three ALSA options on
#   build/sound/             the objects and .ko files (M= tree)
#   build/test_lockup/       test_lockup.ko (against the unmodified headers)
#   modroot/lib/modules/$REL Debian's modules, kernel/sound/ = ours, kernel/lib/test_lockup.ko, depmod'ed
#   times.txt, load.txt      wall times and the machine's load during the compile
set -euo pipefail

W=${W:-/work/tmp/soundonly}
REL=${REL:-6.1.0-57-amd64}
HDR=/usr/src/linux-headers-$REL
KBUILD=/usr/lib/linux-kbuild-6.1
TAR=${TAR:-/usr/src/linux-source-6.1.tar.xz}
DEB_ROOT=${DEB_ROOT:-$HOME/.cache/xrunhunt/lab/linux-image-6.1.0-57-amd64_6.1.192-3/root}
JOBS=${JOBS:-2}
NICE="nice -n 19"

mkdir -p "$W/src" "$W/build"
cd "$W"
t() { echo "$(date +%T) ${MINIMAL:+minimal }${SKIP_COMPILE:+skip-compile }$1 $2" | tee -a "$W/times.txt"; }
now() { date +%s.%N; }
dt() { echo "$(now) - $1" | bc; }

# ---- 1. sources: only sound/ and lib/test_lockup.c (xz streams the whole 138 MB tarball) -----
T0=$(now)
if [ ! -f "$W/src/linux-source-6.1/sound/core/pcm_lib.c" ]; then
  $NICE tar -C "$W/src" -xJf "$TAR" linux-source-6.1/sound linux-source-6.1/lib/test_lockup.c
fi
t extract_s "$(dt "$T0")"

# ---- 2. headers: a private copy of linux-headers-$REL with the ALSA debug options ------------
# Only the arch-specific half is copied (3 MB: .config, Module.symvers, include/generated,
# include/config); its Makefile includes the -common half, which stays shared and read-only.
T0=$(now)
rm -rf "$W/headers"
cp -a "$HDR" "$W/headers"
ln -sfn "$KBUILD/scripts" "$W/headers/scripts"
ln -sfn "$KBUILD/tools" "$W/headers/tools"
H=$W/headers
# The three options (VERBOSE_PROCFS is already y in Debian's config). Everything that depends on
# SND_DEBUG is off by default (SND_DEBUG_VERBOSE, SND_CTL_DEBUG, SND_JACK_INJECTION_DEBUG), so
# this equals what `make olddefconfig` would give; no `select` hangs off either option.
for opt in SND_DEBUG SND_PCM_XRUN_DEBUG SND_VERBOSE_PROCFS; do
  sed -i "/^# CONFIG_$opt is not set\$/d; /^CONFIG_$opt=/d" "$H/.config" "$H/include/config/auto.conf"
  echo "CONFIG_$opt=y" >>"$H/.config"
  echo "CONFIG_$opt=y" >>"$H/include/config/auto.conf"
  sed -i "/^#define CONFIG_$opt 1\$/d" "$H/include/generated/autoconf.h"
  echo "#define CONFIG_$opt 1" >>"$H/include/generated/autoconf.h"
done
t headers_s "$(dt "$T0")"

# ---- 3. the sound tree to build ------------------------------------------------------------
# core/ (snd, snd-pcm, snd-timer, snd-hrtimer, snd-hwdep, snd-rawmidi, snd-seq*, oss/ …),
# drivers/ (snd-dummy, snd-aloop, …), hda/ (snd-hda-core, snd-intel-dspcfg, …), pci/hda/ (snd-hda-intel,
# snd-hda-codec, snd-hda-codec-generic and every codec), pci/ac97/ + snd-intel8x0, usb/ (snd-usb-audio,
# snd-usbmidi-lib, …), soundcore and ac97_bus. Everything else of sound/ (soc/, firewire/, isa/, …) is not built.
# MINIMAL=1: only the 21 modules the lab's four cards load (leaf modules switched off on make's
# command line, which overrides include/config/auto.conf for object selection only).
SUF=; OVR=()
if [ "${MINIMAL:-}" = 1 ]; then
  SUF=-min
  for o in SND_SEQUENCER SND_PCM_OSS SND_MIXER_OSS SND_COMPRESS_OFFLOAD SND_CTL_LED \
    SND_MTPAV SND_MTS64 SND_PORTMAN2X4 SND_SERIAL_U16550 SND_VIRMIDI SND_MPU401 SND_MPU401_UART \
    SND_PCSP SND_OPL3_LIB SND_OPL3_LIB_SEQ SND_VX_LIB SND_HDA_EXT_CORE \
    SND_HDA_CODEC_REALTEK SND_HDA_CODEC_ANALOG SND_HDA_CODEC_SIGMATEL SND_HDA_CODEC_VIA \
    SND_HDA_CODEC_HDMI SND_HDA_CODEC_CIRRUS SND_HDA_CODEC_CS8409 SND_HDA_CODEC_CONEXANT \
    SND_HDA_CODEC_CA0110 SND_HDA_CODEC_CA0132 SND_HDA_CODEC_CMEDIA SND_HDA_CODEC_SI3054 \
    SND_HDA_SCODEC_CS35L41 SND_HDA_SCODEC_CS35L41_I2C SND_HDA_SCODEC_CS35L41_SPI SND_HDA_CS_DSP_CONTROLS \
    SND_USB_UA101 SND_USB_USX2Y SND_USB_CAIAQ SND_USB_US122L SND_USB_6FIRE SND_USB_HIFACE \
    SND_BCD2000 SND_USB_LINE6 SND_USB_POD SND_USB_PODHD SND_USB_TONEPORT SND_USB_VARIAX; do
    OVR+=("CONFIG_$o=")
  done
fi
B=$W/build/sound$SUF
if [ "${SKIP_COMPILE:-}" != 1 ]; then   # SKIP_COMPILE=1: only redo the module root (step 5)
T0=$(now)
rm -rf "$B"
cp -a "$W/src/linux-source-6.1/sound" "$B"
cat >"$B/Kbuild" <<'EOF'
# xrunhunt sound-only build: the subset of sound/Makefile the lab's cards need.
obj-$(CONFIG_SOUND) += soundcore.o
obj-$(CONFIG_SND) += core/ drivers/ hda/ pci/ usb/
obj-$(CONFIG_AC97_BUS) += ac97_bus.o
soundcore-objs := sound_core.o
EOF
cat >"$B/pci/Kbuild" <<'EOF'
# xrunhunt sound-only build: of sound/pci only the AC97 (intel8x0) and HDA drivers.
snd-intel8x0-objs := intel8x0.o
obj-$(CONFIG_SND_INTEL8X0) += snd-intel8x0.o
obj-$(CONFIG_SND) += ac97/ hda/
EOF
t prepare_s "$(dt "$T0")"

# Load sampler for the compile.
( while :; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 15; done ) >"$W/load$SUF.txt" &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null || true' EXIT

T0=$(now)
$NICE make -C "$H" M="$B" -j"$JOBS" "${OVR[@]}" modules >"$W/build-sound$SUF.log" 2>&1 || {
  tail -40 "$W/build-sound$SUF.log"
  exit 1
}
t compile_sound_s "$(dt "$T0")"

# ---- 4. test_lockup.ko (no ALSA in it: Debian's unmodified headers) --------------------------
T0=$(now)
L=$W/build/test_lockup
rm -rf "$L"
mkdir -p "$L"
cp "$W/src/linux-source-6.1/lib/test_lockup.c" "$L/"
echo 'obj-m := test_lockup.o' >"$L/Kbuild"
$NICE make -C "$HDR" M="$L" -j"$JOBS" modules >"$W/build-test_lockup.log" 2>&1 || {
  tail -40 "$W/build-test_lockup.log"
  exit 1
}
t compile_test_lockup_s "$(dt "$T0")"
kill $SAMPLER 2>/dev/null || true
fi
L=$W/build/test_lockup

# ---- 5. a module root for the guest: Debian's tree, kernel/sound replaced by ours -----------
T0=$(now)
MR=$W/modroot$SUF
M=$MR/lib/modules/$REL
rm -rf "$MR"
mkdir -p "$M"
# Hard links where possible (same file system), copies otherwise; modules.* are regenerated.
cp -al "$DEB_ROOT/lib/modules/$REL/kernel" "$M/kernel" 2>/dev/null || cp -a "$DEB_ROOT/lib/modules/$REL/kernel" "$M/kernel"
for f in modules.order modules.builtin modules.builtin.modinfo; do
  [ -f "$DEB_ROOT/lib/modules/$REL/$f" ] && cp "$DEB_ROOT/lib/modules/$REL/$f" "$M/"
done
rm -rf "$M/kernel/sound"
(cd "$B" && find . -name '*.ko' | while read -r k; do
  mkdir -p "$M/kernel/sound/$(dirname "$k")"
  cp "$k" "$M/kernel/sound/$k"
  strip --strip-debug "$M/kernel/sound/$k"   # as Debian's packaging does (debug info: ~9x the size)
done)
mkdir -p "$M/kernel/lib"
cp "$L/test_lockup.ko" "$M/kernel/lib/test_lockup.ko"
strip --strip-debug "$M/kernel/lib/test_lockup.ko"
depmod -b "$MR" "$REL"
t modroot_s "$(dt "$T0")"

echo "modules built: $(find "$B" -name '*.ko' | wc -l)"
du -sh "$B" "$M/kernel/sound"
