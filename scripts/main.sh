#!/usr/bin/env bash
# The main job in one command: installs what xrunhunt needs, then runs a full diagnostic
# session — on this machine's sound card when it has one, otherwise inside the lab VM
# (Debian's own kernel, downloaded once and cached under ~/.cache/xrunhunt/lab, with an
# emulated HDA card). Extra arguments go to `xrunhunt session`.
set -euo pipefail
source "$(dirname "$0")/as-root.sh" "$0" "$@"
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

if grep -qE '^ *[0-9]+ \[' /proc/asound/cards 2>/dev/null; then
  echo "xrunhunt: sound card found; running the session on this machine" >&2
  # The period comes from an idle probe unless given: the report is then about the load.
  case " $* " in *" --period "* | *" --period="*) exec node bin/xrunhunt.js session "$@" ;; esac
  exec node bin/xrunhunt.js session --period auto "$@"
fi

echo "xrunhunt: no sound card on this machine; running the session in the lab VM" >&2
# Debian's own kernel (downloaded, not compiled) with an emulated Intel HDA card: the kprobe
# backend sees every XRUN stack without xrun_debug. `lab build` makes the xrun_debug one
# (Debian's kernel with its sound modules rebuilt, ~3 min).
LAB=(--kernel debian --card hda)
node bin/xrunhunt.js lab build --kernel debian
# Session options go after `--` (lab session takes the lab's own options before it).
if [ "$#" -gt 0 ]; then exec node bin/xrunhunt.js lab session "${LAB[@]}" -- "$@"; fi
exec node bin/xrunhunt.js lab session "${LAB[@]}"
