/* A dataflow graph: a diamond a -> {b, c} -> d, then a chain of nodes that
 * node d grows while it runs (each added node after the one before). Every
 * node checks that its predecessors have finished; the order is checked
 * again at the end. A cycle is refused before anything runs.
 *
 *   graph [policy] [threads] */
#include "common.h"
#include <stdatomic.h>

#define CHAIN 50

static _Atomic int done[4 + CHAIN];
static _Atomic int clock_;
static int finished_at[4 + CHAIN];

struct node { int id; int preds[2]; int npreds; };

static void body(fg_graph_ctx *gc, void *ctx);

static struct node nodes[4 + CHAIN];

static void finish(int id) {
    finished_at[id] = atomic_fetch_add(&clock_, 1);
    atomic_store(&done[id], 1);
}

static void body(fg_graph_ctx *gc, void *ctx) {
    struct node *n = ctx;
    for (int p = 0; p < n->npreds; p++)
        FG_CHECK(atomic_load(&done[n->preds[p]]), "node %d ran before its predecessor %d", n->id, n->preds[p]);
    if (n->id == 3) { /* d grows a chain: 4 after d, 5 after 4, ... */
        size_t prev = 3;
        for (int k = 0; k < CHAIN; k++) {
            struct node *c = &nodes[4 + k];
            c->id = 4 + k, c->preds[0] = k == 0 ? 3 : 3 + k, c->npreds = 1;
            size_t id;
            FG_TRY(fg_graph_ctx_add_node(gc, body, c, &id));
            if (k > 0)
                FG_TRY(fg_graph_ctx_add_edge(gc, prev, id));
            prev = id;
        }
    }
    finish(n->id);
}

static void run(void *p) {
    (void)p;
    fg_graph *g;
    FG_TRY(fg_graph_new(&g));
    size_t id[4];
    nodes[0] = (struct node){0, {0}, 0};
    nodes[1] = (struct node){1, {0}, 1};
    nodes[2] = (struct node){2, {0}, 1};
    nodes[3] = (struct node){3, {1, 2}, 2};
    for (int i = 0; i < 4; i++)
        FG_TRY(fg_graph_add_node(g, body, &nodes[i], &id[i]));
    FG_TRY(fg_graph_add_edge(g, id[0], id[1]));
    FG_TRY(fg_graph_add_edge(g, id[0], id[2]));
    FG_TRY(fg_graph_add_edge(g, id[1], id[3]));
    FG_TRY(fg_graph_add_edge(g, id[2], id[3]));
    FG_TRY(fg_graph_run(g));
    FG_CHECK(fg_graph_run(g) == FG_ERR_STATE, "a graph runs once");
    FG_TRY(fg_graph_destroy(g));

    /* A cycle: refused, nothing runs. */
    FG_TRY(fg_graph_new(&g));
    size_t a, b;
    FG_TRY(fg_graph_add_node(g, body, &nodes[0], &a));
    FG_TRY(fg_graph_add_node(g, body, &nodes[0], &b));
    FG_TRY(fg_graph_add_edge(g, a, b));
    FG_TRY(fg_graph_add_edge(g, b, a));
    FG_CHECK(fg_graph_run(g) == FG_ERR_CYCLE, "a cycle is an error");
    FG_CHECK(fg_graph_add_edge(g, a, 99) == FG_ERR_STATE, "a graph that has been run takes no edges");
    FG_TRY(fg_graph_destroy(g));
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    FG_TRY(fg_pool_run(pool, run, NULL));
    for (int i = 0; i < 4 + CHAIN; i++)
        FG_CHECK(atomic_load(&done[i]), "node %d never ran", i);
    FG_CHECK(finished_at[0] < finished_at[1] && finished_at[0] < finished_at[2], "a before b and c");
    FG_CHECK(finished_at[3] > finished_at[1] && finished_at[3] > finished_at[2], "d after b and c");
    for (int k = 1; k < CHAIN; k++)
        FG_CHECK(finished_at[4 + k] > finished_at[3 + k], "chain node %d after %d", 4 + k, 3 + k);
    printf("graph: %d nodes in order under %s\n", 4 + CHAIN, spec);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
