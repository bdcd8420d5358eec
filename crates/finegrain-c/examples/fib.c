/* fib through the two fork-join interfaces: fg_invoke (a join, HammerBlade's
 * parallel_invoke) and fg_spawn/fg_sync on a scope (Cilk's spawn/sync,
 * HammerBlade's spawn()/wait(); Cheng et al., ASPLOS 2023, section 3,
 * Figure 3(a) and 3(c)), each checked against the serial recursion.
 *
 *   fib [policy] [threads] [n] [invoke|spawn|both|serial]
 *
 * `measured` holds the whole recursion of one mode, so that callgrind can
 * count just it (scripts/c_api.sh spawn-cost). */
#include "common.h"
#include <stdint.h>

struct fib { unsigned n; uint64_t r; };

static uint64_t fib_serial(unsigned n) {
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/* One C function per call of the recursion, as a C programmer writes it:
 * the task computes its own fib into its struct. */
static void fib_invoke_task(void *p) {
    struct fib *f = p;
    unsigned n = f->n;
    if (n < 2) {
        f->r = n;
        return;
    }
    struct fib a = {n - 1, 0}, b = {n - 2, 0};
    FG_TRY(fg_invoke(fib_invoke_task, &a, fib_invoke_task, &b));
    f->r = a.r + b.r;
}

static uint64_t fib_invoke(unsigned n) {
    struct fib f = {n, 0};
    fib_invoke_task(&f);
    return f.r;
}

static void fib_spawn_task(void *p);

static void fib_spawn_body(fg_scope *s, void *p) {
    struct fib *f = p;
    struct fib a = {f->n - 1, 0}, b = {f->n - 2, 0};
    FG_TRY(fg_spawn(s, fib_spawn_task, &a));
    fib_spawn_task(&b);
    FG_TRY(fg_sync(s));
    f->r = a.r + b.r;
}

static void fib_spawn_task(void *p) {
    struct fib *f = p;
    if (f->n < 2) {
        f->r = f->n;
        return;
    }
    FG_TRY(fg_scope_run(fib_spawn_body, f));
}

enum mode { SERIAL, INVOKE, SPAWN };
struct run { enum mode mode; unsigned n; uint64_t r; };

__attribute__((noinline)) void measured(void *p) {
    struct run *r = p;
    switch (r->mode) {
    case SERIAL: r->r = fib_serial(r->n); break;
    case INVOKE: r->r = fib_invoke(r->n); break;
    case SPAWN: {
        struct fib f = {r->n, 0};
        fib_spawn_task(&f);
        r->r = f.r;
        break;
    }
    }
}

static void warm_up(void *p) {
    struct run *r = p;
    struct fib f = {r->n, 0};
    r->r = fib_invoke(r->n);
    fib_spawn_task(&f);
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    unsigned n = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 30;
    const char *which = argc > 4 ? argv[4] : "both";
    uint64_t want = fib_serial(n);
    /* One-time costs (lazy thread-locals, clock calibration) outside the count. */
    struct run warm = {INVOKE, n < 18 ? n : 18, 0};
    FG_TRY(fg_pool_run(pool, warm_up, &warm));
    enum mode modes[2];
    int count = 0;
    if (!strcmp(which, "serial")) {
        struct run r = {SERIAL, n, 0};
        measured(&r);
        FG_CHECK(r.r == want, "serial %llu", (unsigned long long)r.r);
    } else {
        if (!strcmp(which, "invoke") || !strcmp(which, "both"))
            modes[count++] = INVOKE;
        if (!strcmp(which, "spawn") || !strcmp(which, "both"))
            modes[count++] = SPAWN;
        FG_CHECK(count > 0, "unknown mode %s (invoke, spawn, both, serial)", which);
    }
    for (int i = 0; i < count; i++) {
        struct run r = {modes[i], n, 0};
        FG_TRY(fg_pool_run(pool, measured, &r));
        FG_CHECK(r.r == want, "%s fib(%u) = %llu, expected %llu", modes[i] == INVOKE ? "invoke" : "spawn", n,
                 (unsigned long long)r.r, (unsigned long long)want);
    }
    fg_stats st;
    FG_TRY(fg_pool_stats(pool, &st));
    printf("fib(%u) = %llu under %s (%zu threads, %s): tasks run %llu, steals %llu\n", n,
           (unsigned long long)want, spec, st.threads, which, (unsigned long long)st.tasks_run,
           (unsigned long long)st.steals);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
