// A JACK client that is late on purpose, for test/realtime/jack-watch.test.ts: it spins (busy-
// waits, no sleep, so its real-time thread stays runnable) for BUSY_MS milliseconds in its
// process callback at the given cycle numbers, and prints the CLOCK_MONOTONIC time at which
// each spin began. No headers needed (the few libjack prototypes are declared here), so it
// builds wherever gcc and libjack.so.0 are: gcc -O2 -o late jack-late-client.c -l:libjack.so.0
//   usage: jack-late-client NAME SERVER BUSY_MS CYCLE...   (cycles in increasing order)
//   prints: "ready <ns>" after jack_activate, "stall <ns> cycle <n>" per spin, "closed" at the end
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct _jack_client jack_client_t;
typedef uint32_t jack_nframes_t;
extern jack_client_t *jack_client_open(const char *name, int options, int *status, ...);
extern int jack_set_process_callback(jack_client_t *, int (*)(jack_nframes_t, void *), void *);
extern int jack_activate(jack_client_t *);
extern int jack_client_close(jack_client_t *);

#define JACK_NO_START_SERVER 0x01
#define JACK_SERVER_NAME 0x04
#define MAX_STALLS 64

static long long stall_cycles[MAX_STALLS];
static int n_stalls;
static long long busy_ns;
static volatile long long cycle;
static volatile long long stall_ns[MAX_STALLS];
static volatile int n_done;
static volatile sig_atomic_t stop;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// JACK's real-time thread: no allocation, no IO; the main thread prints.
static int process(jack_nframes_t nframes, void *arg) {
  (void)nframes;
  (void)arg;
  long long c = cycle++;
  if (n_done < n_stalls && stall_cycles[n_done] == c) {
    long long t0 = now_ns();
    stall_ns[n_done] = t0;
    while (now_ns() - t0 < busy_ns) {
    }
    n_done++;
  }
  return 0;
}

static void on_signal(int s) {
  (void)s;
  stop = 1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s NAME SERVER BUSY_MS CYCLE...\n", argv[0]);
    return 64;
  }
  busy_ns = (long long)(atof(argv[3]) * 1e6);
  for (int i = 4; i < argc && n_stalls < MAX_STALLS; i++) stall_cycles[n_stalls++] = atoll(argv[i]);
  int status = 0;
  jack_client_t *c =
      jack_client_open(argv[1], JACK_NO_START_SERVER | JACK_SERVER_NAME, &status, argv[2]);
  if (!c) {
    fprintf(stderr, "jack_client_open failed, status 0x%x\n", status);
    return 1;
  }
  jack_set_process_callback(c, process, NULL);
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  if (jack_activate(c)) {
    fprintf(stderr, "jack_activate failed\n");
    return 1;
  }
  printf("ready %lld\n", now_ns());
  fflush(stdout);
  int printed = 0;
  while (!stop) {
    usleep(5000);
    for (; printed < n_done; printed++) {
      printf("stall %lld cycle %lld\n", stall_ns[printed], stall_cycles[printed]);
      fflush(stdout);
    }
    if (n_stalls > 0 && printed == n_stalls) break;
  }
  jack_client_close(c);
  printf("closed\n");
  return 0;
}
