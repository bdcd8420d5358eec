/* ADM's task interface (Sanchez, Yoo, Kozyrakis, "Flexible Architectural
 * Support for Fine-Grain Scheduling", ASPLOS 2010, section 4): a
 * level-synchronous BFS over a generated graph, one phase per level, whose
 * tasks are ranges (lo, hi) of the level's frontier that split themselves
 * in halves down to 64 nodes; a task claims each unvisited neighbour with a
 * compare-and-swap and appends it to the next frontier. Checked against a
 * serial BFS. Then a phase whose tasks return values (section 4.2), checked
 * against a formula.
 *
 *   bfs_phase [policy] [threads] [nodes] */
#include "common.h"
#include <stdatomic.h>
#include <stdint.h>

struct graph {
    size_t n;
    size_t *start;
    uint32_t *adj;
    _Atomic uint32_t *dist;
    uint32_t *frontier, *next; /* this level's nodes and the next level's */
    _Atomic size_t next_len;
    uint32_t level;
};

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* n nodes; node i links to i+1 (so all are reachable) and 3 random nodes. */
static struct graph make_graph(size_t n) {
    const size_t deg = 4;
    struct graph g = {n, malloc((n + 1) * sizeof(size_t)), malloc(n * deg * sizeof(uint32_t)),
                      malloc(n * sizeof(_Atomic uint32_t)), malloc(n * sizeof(uint32_t)),
                      malloc(n * sizeof(uint32_t)), 0, 0};
    FG_CHECK(g.start && g.adj && g.dist && g.frontier && g.next, "out of memory");
    for (size_t i = 0; i < n; i++) {
        g.start[i] = i * deg;
        g.adj[i * deg] = (uint32_t)((i + 1) % n);
        for (size_t k = 1; k < deg; k++)
            g.adj[i * deg + k] = (uint32_t)(next() % n);
        atomic_init(&g.dist[i], UINT32_MAX);
    }
    g.start[n] = n * deg;
    return g;
}

static void visit(fg_phase *ph, void *ctx, size_t lo, size_t hi, size_t w2, size_t w3) {
    (void)w2, (void)w3;
    struct graph *g = ctx;
    while (hi - lo > 64) { /* keep the lower half, offer the upper one */
        size_t mid = lo + (hi - lo) / 2;
        FG_TRY(fg_phase_enqueue(ph, mid, hi, 0, 0));
        hi = mid;
    }
    for (size_t f = lo; f < hi; f++) {
        uint32_t u = g->frontier[f];
        for (size_t e = g->start[u]; e < g->start[u + 1]; e++) {
            uint32_t v = g->adj[e], unvisited = UINT32_MAX;
            if (atomic_compare_exchange_strong_explicit(&g->dist[v], &unvisited, g->level + 1,
                                                        memory_order_relaxed, memory_order_relaxed))
                g->next[atomic_fetch_add_explicit(&g->next_len, 1, memory_order_relaxed)] = v;
        }
    }
}

static uint64_t tree_node(fg_phase *ph, void *ctx, size_t depth, size_t w1, size_t w2, size_t w3) {
    (void)ctx, (void)w1, (void)w2, (void)w3;
    if (depth < 12) {
        FG_TRY(fg_phase_enqueue(ph, depth + 1, 0, 0, 0));
        FG_TRY(fg_phase_enqueue(ph, depth + 1, 0, 0, 0));
    }
    return depth;
}
static uint64_t add(void *ctx, uint64_t a, uint64_t b) { (void)ctx; return a + b; }

struct job { struct graph *g; uint64_t depth_sum; };

static void run(void *p) {
    struct job *j = p;
    struct graph *g = j->g;
    atomic_store(&g->dist[0], 0);
    g->frontier[0] = 0;
    size_t len = 1;
    for (g->level = 0; len > 0; g->level++) {
        atomic_store(&g->next_len, 0);
        fg_task whole = {{0, len, 0, 0}};
        FG_TRY(fg_phase_run(&whole, 1, visit, g));
        uint32_t *t = g->frontier;
        g->frontier = g->next, g->next = t;
        len = atomic_load(&g->next_len);
    }
    FG_TRY(fg_phase_run(NULL, 0, visit, g)); /* no tasks: returns at once */
    fg_task root = {{0, 0, 0, 0}};
    FG_TRY(fg_phase_reduce_u64(&root, 1, 0, add, tree_node, NULL, &j->depth_sum));
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    size_t n = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : 200000;
    struct graph g = make_graph(n);
    struct job j = {&g, 0};
    FG_TRY(fg_pool_run(pool, run, &j));

    /* Serial BFS. */
    uint32_t *want = malloc(n * sizeof *want);
    uint32_t *queue = malloc(n * sizeof *queue);
    FG_CHECK(want && queue, "out of memory");
    for (size_t i = 0; i < n; i++)
        want[i] = UINT32_MAX;
    size_t head = 0, tail = 0;
    want[0] = 0, queue[tail++] = 0;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (size_t e = g.start[u]; e < g.start[u + 1]; e++)
            if (want[g.adj[e]] == UINT32_MAX)
                want[g.adj[e]] = want[u] + 1, queue[tail++] = g.adj[e];
    }
    uint32_t levels = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = atomic_load(&g.dist[i]);
        FG_CHECK(d == want[i], "dist[%zu] = %u, expected %u", i, d, want[i]);
        levels = d > levels ? d : levels;
    }
    uint64_t sum = 0; /* sum over depths d of d * 2^d */
    for (uint64_t d = 0; d <= 12; d++)
        sum += d << d;
    FG_CHECK(j.depth_sum == sum, "phase_reduce %llu, expected %llu", (unsigned long long)j.depth_sum,
             (unsigned long long)sum);
    printf("bfs_phase: %zu nodes, %u levels, tree depth sum %llu under %s\n", n, levels,
           (unsigned long long)sum, spec);
    free(want), free(queue), free(g.start), free(g.adj), free((void *)g.dist), free(g.frontier), free(g.next);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
