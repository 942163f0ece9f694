#!/usr/bin/env bash
# A JACK server on the dummy backend: a real audio clock without sound hardware, so
# `xrunhunt play --device plug:jack` gets genuine -EPIPE underruns (platform-facts §3).
#   bash scripts/jack-dummy.sh start|stop|status
# start: no-op (exit 0) if a JACK server already answers; otherwise starts jackd detached,
#        records its PID, and waits until it accepts clients.
# stop:  stops only the jackd this script started (by recorded PID), never another one.
set -euo pipefail

PIDFILE="${XRUNHUNT_JACK_PIDFILE:-/tmp/xrunhunt-jackd.pid}"
LOGFILE="${XRUNHUNT_JACK_LOG:-/tmp/xrunhunt-jackd.log}"
RATE="${XRUNHUNT_JACK_RATE:-48000}"
PERIOD="${XRUNHUNT_JACK_PERIOD:-64}"
# Seconds to wait for the server to accept clients (it starts in ~0.5 s here).
START_TIMEOUT=10

# jack_wait -c exits 0 either way; its output says "running" or "not running".
running() { [[ "$(jack_wait -c 2>/dev/null)" == running ]]; }

our_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == jackd ]] && echo "$pid"
}

case "${1:-}" in
  start)
    if ! command -v jackd >/dev/null; then
      echo "jack-dummy: jackd not found: apt-get install jackd2 libasound2-plugins" >&2
      exit 1
    fi
    if running; then
      echo "jack-dummy: a JACK server is already running"
      exit 0
    fi
    JACK_NO_AUDIO_RESERVATION=1 setsid jackd -R -P 85 -d dummy -r "$RATE" -p "$PERIOD" \
      >"$LOGFILE" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    jack_wait -w -t "$START_TIMEOUT" >/dev/null 2>&1 || true
    if ! running; then
      echo "jack-dummy: jackd did not accept clients within ${START_TIMEOUT}s; log: $LOGFILE" >&2
      tail -5 "$LOGFILE" >&2 || true
      exit 1
    fi
    echo "jack-dummy: started jackd (pid $(cat "$PIDFILE"), dummy, ${RATE} Hz, period ${PERIOD})"
    ;;
  stop)
    if pid="$(our_pid)"; then
      kill "$pid"
      for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      rm -f "$PIDFILE"
      echo "jack-dummy: stopped jackd (pid $pid)"
    else
      echo "jack-dummy: no jackd started by this script is running"
    fi
    ;;
  status)
    if running; then
      if pid="$(our_pid)"; then
        echo "jack-dummy: running (pid $pid, started by this script)"
      else
        echo "jack-dummy: running (not started by this script)"
      fi
    else
      echo "jack-dummy: not running"
      exit 3
    fi
    ;;
  *)
    echo "usage: bash scripts/jack-dummy.sh start|stop|status" >&2
    exit 64
    ;;
esac
