#!/usr/bin/env bash
# The main job in one command: installs what xrunhunt needs for this machine, then runs a full
# diagnostic session — on this machine's sound card when it has one, otherwise inside the lab VM
# (Debian's own kernel, downloaded once and cached under ~/.cache/xrunhunt/lab, with an emulated
# HDA card), followed by a labelled demonstration with a known injected culprit.
#   bash scripts/main.sh [--no-install] [session options]
# --no-install prints what would be installed and why, and stops (no root needed). Other
# arguments go to `xrunhunt session`. It exits 0 once a report is printed, whatever the report
# found (session's own 0/1/2 are for scripts: run `xrunhunt session` directly for those), and
# names the folders that hold the reports and bundles. Results go under ./xrunhunt-results/
# (XRUNHUNT_RESULTS to choose another folder). XRUNHUNT_ASOUND_CARDS reads another file than
# /proc/asound/cards (tests of the choice below).
set -euo pipefail

no_install=0
args=()
for a in "$@"; do
  if [ "$a" = --no-install ]; then no_install=1; else args+=("$a"); fi
done

cards_file="${XRUNHUNT_ASOUND_CARDS:-/proc/asound/cards}"
# A sound card here (or a device the user names on this machine): the session runs here, and
# only the runtime set is needed. Otherwise the lab VM: the lab set (QEMU and its helpers).
where=lab
if grep -qE '^ *[0-9]+ \[' "$cards_file" 2>/dev/null; then
  where=card
  why="sound card found in $cards_file: the session runs on it (no QEMU needed)"
else
  why="no sound card in $cards_file: the session runs in the lab VM (QEMU, Debian's kernel)"
fi
for a in "${args[@]+"${args[@]}"}"; do
  case "$a" in -D | --device | --device=* | -D?*)
    where=card
    why="a device was given: the session runs on this machine (no QEMU needed)"
    ;;
  esac
done
set_name=runtime
[ "$where" = lab ] && set_name=lab
echo "xrunhunt: $why; packages: the $set_name set (debian-packages.txt)" >&2
if [ "$where" = lab ] && [ "${XRUNHUNT_DEMO:-1}" != 0 ]; then
  echo "xrunhunt: and, for the demonstration's injector (built on first use): Debian's" \
    "linux-headers package for its kernel (apt brings gcc-12 with it; XRUNHUNT_DEMO=0 skips it)" >&2
fi

if [ "$no_install" = 1 ]; then
  exec bash "$(dirname "$0")/install-deps.sh" --set "$set_name" --no-install
fi

source "$(dirname "$0")/as-root.sh" "$0" "$@"
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh --set "$set_name"

results="${XRUNHUNT_RESULTS:-$PWD/xrunhunt-results}"
run_dir="$results/main-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# Run through sudo from a user's checkout: the results are theirs, not root's.
give_back() {
  if [ -n "${SUDO_UID:-}" ] && [ "${SUDO_UID}" != 0 ] && [ "$(stat -c %u .)" = "$SUDO_UID" ]; then
    chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$results" 2>/dev/null || true
  fi
}
# A --out of the user's own: the session writes there (its name is what to print at the end).
user_out=
prev=
for a in "${args[@]+"${args[@]}"}"; do
  case "$a" in --out=*) user_out="${a#--out=}" ;; esac
  [ "$prev" = --out ] && user_out="$a"
  prev="$a"
done

# The exit a user reads right: 0 once a report was printed (session's 0 none found, 2 found);
# an error (1) or Ctrl-C (130) passes through.
finish() {
  local rc=$1
  shift
  give_back
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then exit "$rc"; fi
  echo "xrunhunt: done. Reports and bundles (report.txt, bundle.json.gz) on this machine:" >&2
  for d in "$@"; do echo "  $d" >&2; done
  exit 0
}

if [ "$where" = card ]; then
  echo "xrunhunt: running the session on this machine" >&2
  out=(--out "$run_dir")
  [ -z "$user_out" ] || out=()
  # The period comes from an idle probe unless given: the report is then about the load.
  period=(--period auto)
  case " ${args[*]+"${args[*]}"} " in *" --period "* | *" --period="*) period=() ;; esac
  rc=0
  node bin/xrunhunt.js session "${period[@]+"${period[@]}"}" "${out[@]+"${out[@]}"}" \
    "${args[@]+"${args[@]}"}" || rc=$?
  finish "$rc" "${user_out:-$run_dir}"
fi

echo "xrunhunt: no sound card on this machine; running the session in the lab VM" >&2
# Debian's own kernel (downloaded, not compiled; `lab session` fetches it on first use) with an
# emulated Intel HDA card: the kprobe backend sees every XRUN stack without xrun_debug. Only the
# demonstration's --inject builds the injector (and so installs the headers and gcc).
LAB=(--kernel debian --card hda)
# Session options go after `--` (lab session takes the lab's own options before it).
rc=0
node bin/xrunhunt.js lab session "${LAB[@]}" --out "$run_dir/measurement" \
  ${args[@]+-- "${args[@]}"} || rc=$?
# 130: Ctrl-C; 1: an error. Only after a measurement that ran is there something to set beside it.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then finish "$rc"; fi
folders=("$run_dir/measurement")

# The emulator's own xruns can push --period auto high enough that nothing is found, which
# teaches a new user nothing. So, clearly labelled, the same lab with a known culprit: the lab's
# injector module (xrunhunt_inject, built against Debian's headers) holds interrupts off for 20 ms
# at a time (twice the 10.7 ms buffer of 256 x 2 frames), and the report ranks its unlock function
# first (32 of the 43 kernel-code dumps in a fresh-clone run). XRUNHUNT_DEMO=0 skips it.
if [ "${XRUNHUNT_DEMO:-1}" != "0" ]; then
  cat >&2 <<'BANNER'

========================================================================================
xrunhunt: DEMONSTRATION, not your machine. The report above is the honest measurement.
Below: the same lab with a KNOWN culprit injected (a kernel module that holds interrupts
off for 20 ms at a time), so you can see what xrunhunt reports when kernel code is to
blame: it should rank xrunhunt_inject_unlock [xrunhunt_inject] first. XRUNHUNT_DEMO=0 skips it.
========================================================================================
BANNER
  demo_rc=0
  node bin/xrunhunt.js lab session "${LAB[@]}" --inject lockup:20:irq \
    --out "$run_dir/demonstration" -- --period 256 --periods 2 --phases idle:20s || demo_rc=$?
  if [ "$demo_rc" -eq 0 ] || [ "$demo_rc" -eq 2 ]; then
    folders+=("$run_dir/demonstration (the DEMONSTRATION)")
  else
    echo "xrunhunt: the demonstration did not run to the end (see above)" >&2
  fi
  echo "xrunhunt: end of the DEMONSTRATION; your measurement is the first report above" >&2
fi
finish "$rc" "${folders[@]}"
