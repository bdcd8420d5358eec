/* A parallel loop (HammerBlade's parallel_for; Cheng et al., ASPLOS 2023,
 * Figure 3(d)): z = a*x + y over a million doubles, in pieces of at most
 * `grain` iterations, checked element by element against a serial loop.
 *
 *   parallel_for [policy] [threads] */
#include "common.h"

struct axpy { double a; const double *x, *y; double *z; size_t grain; };

static void axpy_range(void *p, size_t lo, size_t hi) {
    struct axpy *k = p;
    FG_CHECK(hi - lo <= k->grain && lo < hi, "piece [%zu, %zu) with grain %zu", lo, hi, k->grain);
    for (size_t i = lo; i < hi; i++)
        k->z[i] = k->a * k->x[i] + k->y[i];
}

static void run(void *p) {
    struct axpy *k = p;
    FG_TRY(fg_parallel_for(0, 1000000, k->grain, axpy_range, k));
    /* An empty range calls nothing. */
    FG_TRY(fg_parallel_for(5, 5, 1, axpy_range, NULL));
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    size_t n = 1000000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = calloc(n, sizeof *z);
    FG_CHECK(x && y && z, "out of memory");
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)(i % 1000);
        y[i] = (double)(i % 7);
    }
    struct axpy k = {2.5, x, y, z, 4096};
    FG_TRY(fg_pool_run(pool, run, &k));
    for (size_t i = 0; i < n; i++)
        FG_CHECK(z[i] == 2.5 * x[i] + y[i], "z[%zu] = %g", i, z[i]);
    printf("parallel_for: %zu elements under %s\n", n, spec);
    free(x), free(y), free(z);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
