#!/usr/bin/env bash
# Installs one set of the Debian/Ubuntu packages xrunhunt uses (as root), then the npm
# dependencies (which builds dist/). Safe to run again: apt and npm skip what is already there.
#   bash scripts/install-deps.sh                 the test set (what .ci/run needs: everything)
#   bash scripts/install-deps.sh --set runtime   what a session on this machine's sound card needs
#   bash scripts/install-deps.sh --set lab       runtime + what the lab VM needs (no sound card)
#   bash scripts/install-deps.sh --set lab --no-install
#                                                print what would be installed and why, and stop
# The packages, each with what uses it, are in debian-packages.txt (the one list;
# XRUNHUNT_PACKAGE_LIST reads another, for the tests of what is printed when some are missing).
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=test
no_install=0
while [ "$#" -gt 0 ]; do
  case "$1" in
  --set) set_name="${2:-}"; shift 2 ;;
  --set=*) set_name="${1#--set=}"; shift ;;
  --no-install) no_install=1; shift ;;
  *)
    echo "install-deps: unknown argument \"$1\" (expected --set runtime|lab|test, --no-install)" >&2
    exit 1
    ;;
  esac
done
case "$set_name" in
runtime) sets='runtime' ;;
lab) sets='runtime lab' ;;
test) sets='runtime lab test' ;;
*)
  echo "install-deps: --set must be runtime, lab or test, found \"$set_name\"" >&2
  exit 1
  ;;
esac

# "PACKAGE<TAB>WHY" for every package of the chosen sets.
wanted=$(awk -v sets=" $sets " '
  /^[ \t]*(#|$)/ { next }
  index(sets, " " $1 " ") { why = $0; sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", why); print $2 "\t" why }
' "${XRUNHUNT_PACKAGE_LIST:-debian-packages.txt}")

missing=()
reasons=()
while IFS=$'\t' read -r p why; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && continue
  missing+=("$p")
  reasons+=("$why")
done <<<"$wanted"

if [ ${#missing[@]} -gt 0 ]; then
  echo "xrunhunt: the $set_name set needs ${#missing[@]} Debian package(s) not installed here:" >&2
  for i in "${!missing[@]}"; do printf '  %-20s %s\n' "${missing[$i]}" "${reasons[$i]}" >&2; done
  line="apt-get install --no-install-recommends ${missing[*]}"
  if [ "$no_install" = 1 ] || [ "$(id -u)" -ne 0 ]; then
    echo "install them as root with:" >&2
    echo "  $line" >&2
    [ "$no_install" = 1 ] && exit 0
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # jackd2 asks whether to enable real-time limits; answer for a non-interactive install.
  echo 'jackd2 jackd/tweak_rt_limits boolean false' | debconf-set-selections
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
elif [ "$no_install" = 1 ]; then
  echo "xrunhunt: every package of the $set_name set is installed" >&2
fi
[ "$no_install" = 1 ] && exit 0

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund
else
  npm run build
fi

# Run through sudo from a user's own checkout: hand what was just built back to that user, so a
# later `git pull`, `npm ci` or `npm test` of theirs is not refused on root-owned folders.
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_UID:-}" ] && [ "${SUDO_UID}" != 0 ] &&
  [ "$(stat -c %u .)" = "$SUDO_UID" ]; then
  chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" node_modules dist
fi

# Put `xrunhunt` on PATH (a link to this checkout's entry point) when we may.
if [ "$(id -u)" -eq 0 ] && [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
  ln -sf "$PWD/bin/xrunhunt.js" /usr/local/bin/xrunhunt
fi
