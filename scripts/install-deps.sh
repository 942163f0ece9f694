#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages xrunhunt uses (as root), then the npm dependencies
# (which builds dist/). Safe to run again: apt and npm skip what is already there.
#   libasound2, libasound2-plugins  libasound through koffi; the ALSA jack plugin (plug:jack)
#   jackd2, libjack-jackd2-0        JACK dummy backend: a real clock without sound hardware;
#                                   libjack for watch --jack (koffi binds libjack.so.0)
#   alsa-utils                      aplay (peer in benchmarks), amixer
#   qemu-system-x86, e2fsprogs      the lab VM and its ext4 scratch disk
#   pipewire, pipewire-bin,         PipeWire + WirePlumber + pw-play in the lab guest
#     wireplumber                     (lab --pipewire; the guest runs the host's programs)
#   linux-source-6.1 + toolchain    the lab kernel build
#   busybox-static                  the initramfs of Debian's own kernels (lab --kernel debian)
#   tmux                            terminal tests of the dashboard
#   chromium, fonts-dejavu-core     headless checks (and screenshots) of the HTML reports
#   groff-base                      renders the generated man page in its test (warnings fail it)
#   postgresql (15)                 the shared fleet store's tests start a throwaway cluster
#                                   (initdb + pg_ctl from /usr/lib/postgresql/15/bin, no service)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  libasound2 libasound2-plugins alsa-utils jackd2 libjack-jackd2-0
  qemu-system-x86 e2fsprogs
  pipewire pipewire-bin wireplumber
  linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod busybox-static
  tmux procps util-linux
  chromium fonts-dejavu-core
  groff-base
  postgresql
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "xrunhunt: these packages are missing; install them as root:" >&2
    echo "  apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # jackd2 asks whether to enable real-time limits; answer for a non-interactive install.
  echo 'jackd2 jackd/tweak_rt_limits boolean false' | debconf-set-selections
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

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
