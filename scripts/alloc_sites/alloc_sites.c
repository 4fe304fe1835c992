// alloc_sites.so: which code holds the heap, for a memory that moves (docs/testing.md).
// Preloaded into the app, it keeps every live malloc block with the first return address
// outside libc, libstdc++ and itself, and each time the program calls malloc_trim (the
// window's trims: a reset, a scene load, growth) it appends to $ALLOC_SITES_LOG the live
// bytes summed by that address, the 80 largest, as module+offset. Build and use:
//
//   gcc -O2 -shared -fPIC -o /tmp/alloc_sites.so scripts/alloc_sites/alloc_sites.c -ldl -lpthread
//   TP_MONKEY_LAUNCHER="env LD_PRELOAD=/tmp/alloc_sites.so ALLOC_SITES_LOG=/tmp/sites.txt" TP_MONKEY_SECONDS=480
//     TP_MONKEY_EVERY=60 xvfb-run -a build/bin/tp_window_tests --gtest_filter=Window.AMonkeyPlaysWithoutAFault
//   python3 scripts/alloc_sites/compare.py /tmp/sites.txt 39,60,82   # dumps to compare
//
// Dump k is the app's k-th "tidepool: trimmed" line (the widget log). It costs a
// backtrace a malloc and a 200 MB table of address space (resident as used): a diagnostic,
// never part of a test.
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
extern void* __libc_memalign(size_t, size_t);
#define SLOTS (1u << 23)
typedef struct { uintptr_t p; size_t n; uintptr_t site; } Slot;
static Slot* tab;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int inside __attribute__((tls_model("initial-exec")));
static unsigned live;  // blocks in the table (under mu)
static int off;  // the table could not be made or is nearly full: tracking stops
static int dumps;
// address ranges to skip: libc, libstdc++, this library
static int skip(uintptr_t a) {
  Dl_info info;
  if (!dladdr((void*)a, &info) || !info.dli_fname) return 0;
  const char* f = info.dli_fname;
  return strstr(f, "libc.so") || strstr(f, "libstdc++") || strstr(f, "alloc_sites");
}
#define CACHE 65536
static uintptr_t cache[CACHE];  // (address << 1) | skip, one word: no torn reads between threads
static uintptr_t site_of(void) {
  void* bt[8]; int d = backtrace(bt, 8);
  for (int i = 1; i < d; ++i) {
    uintptr_t a = (uintptr_t)bt[i]; unsigned h = (unsigned)((a >> 2) * 2654435761u) % CACHE;
    int s;
    const uintptr_t c = __atomic_load_n(&cache[h], __ATOMIC_RELAXED);
    if (c >> 1 == a) s = (int)(c & 1); else { s = skip(a); __atomic_store_n(&cache[h], (a << 1) | (uintptr_t)s, __ATOMIC_RELAXED); }
    if (!s) return a;
  }
  return 0;
}
static unsigned hash(uintptr_t p) { return (unsigned)((p >> 4) * 2654435761u) & (SLOTS - 1); }
static void put(uintptr_t p, size_t n, uintptr_t site) {
  if (off) return;
  if (!tab) {
    void* m = mmap(0, sizeof(Slot) * SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) { off = 1; return; }
    tab = m;
  }
  if (live > SLOTS / 10 * 7) { off = 1; return; }  // (its figures would be partial: said in the dump)
  unsigned i = hash(p);
  while (tab[i].p && tab[i].p != p) i = (i + 1) & (SLOTS - 1);
  if (!tab[i].p) ++live;
  tab[i].p = p; tab[i].n = n; tab[i].site = site;
}
static size_t del(uintptr_t p, uintptr_t* site) {  // the block's size (0: not tracked)
  if (!tab) return 0;
  unsigned i = hash(p);
  while (tab[i].p && tab[i].p != p) i = (i + 1) & (SLOTS - 1);
  if (!tab[i].p) return 0;
  const size_t n = tab[i].n;
  if (site) *site = tab[i].site;
  tab[i].p = 0;
  --live;
  unsigned j = i;
  for (;;) {  // backward shift
    j = (j + 1) & (SLOTS - 1);
    if (!tab[j].p) break;
    unsigned k = hash(tab[j].p);
    if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) { tab[i] = tab[j]; tab[j].p = 0; i = j; }
  }
  return n;
}
static void track(void* p, size_t n) {
  if (!p || inside) return;
  inside = 1;
  uintptr_t site = site_of();
  pthread_mutex_lock(&mu); put((uintptr_t)p, n, site); pthread_mutex_unlock(&mu);
  inside = 0;
}
static size_t untrack(void* p, uintptr_t* site) {
  if (!p) return 0;
  pthread_mutex_lock(&mu); const size_t n = del((uintptr_t)p, site); pthread_mutex_unlock(&mu);
  return n;
}
void* malloc(size_t n) { void* p = __libc_malloc(n); track(p, n); return p; }
void* calloc(size_t a, size_t b) { void* p = __libc_calloc(a, b); track(p, a * b); return p; }
void* realloc(void* q, size_t n) {
  uintptr_t site = 0;
  const size_t was = untrack(q, &site);
  void* p = __libc_realloc(q, n);
  if (p) track(p, n);
  else if (q && n && was) { pthread_mutex_lock(&mu); put((uintptr_t)q, was, site); pthread_mutex_unlock(&mu); }  // (q kept)
  return p;
}
void free(void* p) { untrack(p, 0); __libc_free(p); }
void* memalign(size_t a, size_t n) { void* p = __libc_memalign(a, n); track(p, n); return p; }
void* aligned_alloc(size_t a, size_t n) { void* p = __libc_memalign(a, n); track(p, n); return p; }
int posix_memalign(void** out, size_t a, size_t n) { void* p = __libc_memalign(a, n); if (!p) return 12; *out = p; track(p, n); return 0; }
typedef struct { uintptr_t site; size_t n; size_t count; } Agg;
static int by_bytes(const void* a, const void* b) { size_t x = ((const Agg*)a)->n, y = ((const Agg*)b)->n; return x < y ? 1 : x > y ? -1 : 0; }
int malloc_trim(size_t pad) {
  static int (*real)(size_t);
  if (!real) real = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
  const char* path = getenv("ALLOC_SITES_LOG");
  if (path && tab) {
    inside = 1;
    static Agg agg[1 << 16]; unsigned na = 1 << 16;
    memset(agg, 0, sizeof agg);
    pthread_mutex_lock(&mu);
    size_t total = 0;
    for (unsigned i = 0; i < SLOTS; ++i) if (tab[i].p) {
      total += tab[i].n;
      unsigned k = (unsigned)((tab[i].site >> 2) * 2654435761u) & 0xffff, probes = 0;
      while (agg[k].count && agg[k].site != tab[i].site && ++probes < (1u << 16)) k = (k + 1) & 0xffff;
      if (agg[k].count && agg[k].site != tab[i].site) continue;  // (every site slot taken)
      if (!agg[k].count) { agg[k].site = tab[i].site; agg[k].n = 0; }
      agg[k].n += tab[i].n; agg[k].count++;
    }
    pthread_mutex_unlock(&mu);
    qsort(agg, na, sizeof(Agg), by_bytes);
    FILE* f = fopen(path, "a");
    if (!f) { inside = 0; return real ? real(pad) : 0; }
    fprintf(f, "=== dump %d: %.2f MB live%s\n", dumps++, total / 1048576.0, off ? " (tracking stopped: partial)" : "");
    // by module
    for (unsigned k = 0; k < na && k < 80 && agg[k].count; ++k) {
      Dl_info info; const char* mod = "?"; uintptr_t base = 0;
      if (agg[k].site && dladdr((void*)agg[k].site, &info) && info.dli_fname) { mod = info.dli_fname; base = (uintptr_t)info.dli_fbase; }
      fprintf(f, "%9.3f MB %7zu %s+0x%lx\n", agg[k].n / 1048576.0, agg[k].count, mod, (unsigned long)(agg[k].site - base));
    }
    fclose(f);
    inside = 0;
  }
  return real ? real(pad) : 0;
}
