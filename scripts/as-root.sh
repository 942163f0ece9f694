# Sourced by the setup scripts: they need root (apt-get, /proc/asound, the lab's tracefs).
# A root shell (Debian's root has no sudo) goes on as it is; a user with sudo is asked for
# it once and the script re-runs itself as root, keeping CI's marker; anyone else is told
# exactly what to run. Usage, at the top of a script: source "$(dirname "$0")/as-root.sh" "$0" "$@"
if [ "$(id -u)" -ne 0 ]; then
  script="$1"
  shift
  if command -v sudo >/dev/null 2>&1; then
    echo "xrunhunt: $script needs root; asking sudo" >&2
    if [ -n "${CI+set}" ]; then exec sudo -- env "CI=$CI" bash "$script" "$@"; fi
    exec sudo -- bash "$script" "$@"
  fi
  echo "xrunhunt: $script needs root and sudo is not installed; run it in a root shell:" >&2
  echo "  su -c 'bash $script'" >&2
  exit 1
fi
