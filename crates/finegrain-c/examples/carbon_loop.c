/* Carbon's task queue (Kumar, Hughes, Nguyen, "Carbon: Architectural
 * Support for Fine-Grained Parallelism on Chip Multiprocessors", ISCA 2007,
 * section 4.2): a section that enqueues a loop with TQ_ENQUEUE_LOOP, whose
 * tasks of S iterations each enqueue a follow-up task with TQ_ENQUEUE;
 * every iteration and every follow-up must run exactly once. Then
 * TQ_SETLIMIT on a carbon pool, and the same section again.
 *
 *   carbon_loop [policy] [threads]   (TQ_INIT/TQ_SETLIMIT use carbon) */
#include "common.h"
#include <stdatomic.h>

#define N 100000
#define S 64

struct work { _Atomic unsigned hits[N]; _Atomic unsigned followups; _Atomic unsigned bad_size; };

static void followup(fg_tq *q, void *arg, size_t b, size_t e) {
    (void)q;
    struct work *w = arg;
    atomic_fetch_add(&w->followups, (unsigned)(e - b) == S || e == N ? 1 : 0);
}

static void iterations(fg_tq *q, void *arg, size_t b, size_t e) {
    struct work *w = arg;
    /* Carbon's tasks <v1, v2, b, e> of TQ_ENQUEUE_LOOP hold S iterations (the last fewer). */
    if (e - b != S && e != N)
        atomic_fetch_add(&w->bad_size, 1);
    for (size_t i = b; i < e; i++)
        atomic_fetch_add_explicit(&w->hits[i], 1, memory_order_relaxed);
    FG_TRY(TQ_ENQUEUE(q, followup, w, b, e));
}

static void start(fg_tq *q, void *arg, size_t b, size_t e) {
    (void)b, (void)e;
    FG_TRY(TQ_ENQUEUE_LOOP(q, iterations, arg, N, S));
    FG_TRY(TQ_ENQUEUE_LOOP(q, iterations, arg, 0, S)); /* an empty loop enqueues nothing */
}

static void section(void *p) { FG_TRY(fg_tq_section(start, p, 0, 0)); }

static void check(struct work *w, const char *where) {
    for (size_t i = 0; i < N; i++)
        FG_CHECK(atomic_load(&w->hits[i]) == 1, "%s: iteration %zu ran %u times", where, i, atomic_load(&w->hits[i]));
    unsigned tasks = (N + S - 1) / S;
    FG_CHECK(atomic_load(&w->followups) == tasks, "%s: %u follow-ups, expected %u", where, atomic_load(&w->followups), tasks);
    FG_CHECK(atomic_load(&w->bad_size) == 0, "%s: %u tasks not of S iterations", where, atomic_load(&w->bad_size));
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    struct work *w = calloc(1, sizeof *w);
    FG_CHECK(w != NULL, "out of memory");
    FG_TRY(fg_pool_run(pool, section, w));
    check(w, spec);
    FG_TRY(fg_pool_destroy(pool));

    size_t threads = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 2;
    fg_pool *carbon;
    FG_TRY(TQ_INIT(threads, &carbon));
    FG_TRY(TQ_SETLIMIT(carbon, 4));
    memset(w, 0, sizeof *w);
    FG_TRY(fg_pool_run(carbon, section, w));
    check(w, "carbon:limit=4");
    FG_CHECK(TQ_SETLIMIT(carbon, 1000000) == FG_ERR_POLICY, "a limit above the deque capacity is refused");
    FG_TRY(fg_pool_destroy(carbon));
    printf("carbon_loop: %d iterations in tasks of %d under %s and carbon:limit=4\n", N, S, spec);
    free(w);
    return 0;
}
