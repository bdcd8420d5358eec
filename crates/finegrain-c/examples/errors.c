/* Bad calls from C return error codes with messages, and leave the library
 * usable: NULL pointers, unknown policies, thread counts of 0 and over the
 * limit, a destroyed pool, task-space dimensions of 0, misuse of a scope.
 *
 *   errors [policy] [threads] */
#include "common.h"
#include <stdint.h>

#define EXPECT(call, status)                                                                   \
    do {                                                                                       \
        fg_status got = (call);                                                                \
        FG_CHECK(got == (status), "%s returned %s, expected %s (%s)", #call,                   \
                 fg_status_name((int)got), #status, fg_last_error());                          \
        FG_CHECK(got == FG_OK || fg_last_error()[0] != '\0', "%s: no message", #call);         \
    } while (0)

static void nothing(void *ctx) { (void)ctx; }
static void range_nothing(void *ctx, size_t lo, size_t hi) { (void)ctx, (void)lo, (void)hi; }
static void task_nothing(void *ctx, size_t i, size_t j, size_t k) { (void)ctx, (void)i, (void)j, (void)k; }

static fg_scope *escaped;
static void keep_scope(fg_scope *s, void *ctx) { (void)ctx; escaped = s; }
static void sync_escaped(void *ctx) { *(fg_status *)ctx = fg_sync(escaped); }
static void misuse_scope(fg_scope *s, void *ctx) {
    (void)ctx;
    /* The scope's handle from another thread: FG_ERR_STATE, not a race. */
    fg_status from_other = FG_OK;
    escaped = s;
    /* A task spawned into the scope may run on this thread or another; either
     * way, syncing the scope from inside it is refused. */
    EXPECT(fg_spawn(s, sync_escaped, &from_other), FG_OK);
    EXPECT(fg_sync(s), FG_OK);
    FG_CHECK(from_other == FG_ERR_STATE, "fg_sync from a task of the scope returned %s", fg_status_name((int)from_other));
}

static void inside(void *p) {
    (void)p;
    size_t sizes[3] = {4, 0, 2};
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 2, sizes), FG_ERR_DIMENSION);
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 0, sizes), FG_ERR_DIMENSION);
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 4, sizes), FG_ERR_DIMENSION);
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 1, NULL), FG_ERR_NULL);
    EXPECT(fg_taskq_wait(), FG_ERR_STATE);
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 1, sizes), FG_OK);
    EXPECT(fg_taskq_enqueue(task_nothing, NULL, 1, sizes), FG_ERR_STATE);
    EXPECT(fg_taskq_wait(), FG_OK);
    EXPECT(fg_lm_bin_set_mapping_fn(NULL, NULL, 0, 1), FG_ERR_NULL);
    EXPECT(fg_parallel_for(10, 5, 1, range_nothing, NULL), FG_ERR_INVALID);
    EXPECT(fg_parallel_for(0, 5, 0, range_nothing, NULL), FG_ERR_INVALID);
    EXPECT(fg_parallel_for(0, 5, 1, NULL, NULL), FG_ERR_NULL);
    EXPECT(fg_invoke(nothing, NULL, NULL, NULL), FG_ERR_NULL);
    EXPECT(fg_spawn(NULL, nothing, NULL), FG_ERR_NULL);
    EXPECT(fg_sync(NULL), FG_ERR_NULL);
    EXPECT(fg_scope_run(keep_scope, NULL), FG_OK);
    EXPECT(fg_scope_run(misuse_scope, NULL), FG_OK);
    EXPECT(fg_phase_run(NULL, 3, NULL, NULL), FG_ERR_NULL);
    EXPECT(fg_phase_enqueue(NULL, 1, 2, 3, 4), FG_ERR_NULL);
    EXPECT(fg_tq_enqueue(NULL, NULL, NULL, 0, 0), FG_ERR_NULL);
    EXPECT(fg_graph_add_node(NULL, NULL, NULL, NULL), FG_ERR_NULL);
}

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "ws";
    size_t threads = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 2;
    fg_pool *pool = NULL;
    EXPECT(fg_pool_new(NULL, 2, &pool), FG_ERR_NULL);
    EXPECT(fg_pool_new(spec, 2, NULL), FG_ERR_NULL);
    EXPECT(fg_pool_new("no-such-policy", 2, &pool), FG_ERR_POLICY);
    FG_CHECK(strstr(fg_last_error(), "ws") != NULL, "the message lists the valid policies: %s", fg_last_error());
    EXPECT(fg_pool_new("ws:no-such-option=1", 2, &pool), FG_ERR_POLICY);
    EXPECT(fg_pool_new(spec, 0, &pool), FG_ERR_THREADS);
    EXPECT(fg_pool_new(spec, FG_MAX_THREADS + 1, &pool), FG_ERR_THREADS);
    EXPECT(fg_pool_new(spec, SIZE_MAX, &pool), FG_ERR_THREADS);
    FG_CHECK(pool == NULL, "a failed fg_pool_new leaves *out alone");
    EXPECT(fg_pool_new(spec, threads, &pool), FG_OK);
    EXPECT(fg_pool_run(pool, NULL, NULL), FG_ERR_NULL);
    EXPECT(fg_pool_run(pool, inside, NULL), FG_OK);
    fg_stats st;
    EXPECT(fg_pool_stats(pool, NULL), FG_ERR_NULL);
    EXPECT(fg_pool_stats(pool, &st), FG_OK);
    char *json = NULL;
    EXPECT(fg_pool_stats_json(pool, &json), FG_OK);
    FG_CHECK(json && json[0] == '{', "stats JSON: %s", json ? json : "(null)");
    fg_string_free(json);
    EXPECT(fg_tq_setlimit(pool, 2), strncmp(spec, "carbon", 6) ? FG_ERR_POLICY : FG_OK); /* carbon and carbon-paper */
    EXPECT(fg_pool_destroy(pool), FG_OK);
    /* After destroy: detected, not a use of freed memory. */
    EXPECT(fg_pool_run(pool, nothing, NULL), FG_ERR_DESTROYED);
    EXPECT(fg_pool_stats(pool, &st), FG_ERR_DESTROYED);
    EXPECT(fg_pool_destroy(pool), FG_ERR_DESTROYED);
    EXPECT(fg_pool_destroy(NULL), FG_ERR_NULL);
    FG_CHECK(!strcmp(fg_status_name(FG_ERR_DESTROYED), "FG_ERR_DESTROYED"), "status names");
    FG_CHECK(fg_policy_count() > 0 && fg_policy_name(fg_policy_count()) == NULL, "policy list");
    printf("errors: every bad call reported under %s\n", spec);
    return 0;
}
