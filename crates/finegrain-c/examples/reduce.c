/* Reductions (HammerBlade's parallel_reduce; Cheng et al., ASPLOS 2023,
 * Figure 3(e)): a sum of squares over uint64_t and a dot product over
 * doubles, checked against serial loops, and a maximum.
 *
 *   reduce [policy] [threads] */
#include "common.h"
#include <math.h>
#include <stdint.h>

static uint64_t squares(void *ctx, size_t lo, size_t hi, uint64_t acc) {
    (void)ctx;
    for (size_t i = lo; i < hi; i++)
        acc += (uint64_t)i * i;
    return acc;
}
static uint64_t add(void *ctx, uint64_t a, uint64_t b) { (void)ctx; return a + b; }
static uint64_t max_u64(void *ctx, uint64_t a, uint64_t b) { (void)ctx; return a > b ? a : b; }
static uint64_t hash_max(void *ctx, size_t lo, size_t hi, uint64_t acc) {
    (void)ctx;
    for (size_t i = lo; i < hi; i++) {
        uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull >> 20;
        acc = h > acc ? h : acc;
    }
    return acc;
}

struct vecs { const double *x, *y; };
static double dot(void *ctx, size_t lo, size_t hi, double acc) {
    struct vecs *v = ctx;
    for (size_t i = lo; i < hi; i++)
        acc += v->x[i] * v->y[i];
    return acc;
}
static double fadd(void *ctx, double a, double b) { (void)ctx; return a + b; }

struct job { size_t n; struct vecs v; uint64_t sq, mx; double d; };

static void run(void *p) {
    struct job *j = p;
    FG_TRY(fg_parallel_reduce_u64(0, j->n, 1000, 0, squares, add, NULL, &j->sq));
    FG_TRY(fg_parallel_reduce_u64(0, j->n, 777, 0, hash_max, max_u64, NULL, &j->mx));
    FG_TRY(fg_parallel_reduce_f64(0, j->n, 1000, 0.0, dot, fadd, &j->v, &j->d));
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    size_t n = 1000000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    FG_CHECK(x && y, "out of memory");
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0 / (double)(i + 1);
        y[i] = (double)(i % 10);
    }
    struct job j = {n, {x, y}, 0, 0, 0.0};
    FG_TRY(fg_pool_run(pool, run, &j));
    uint64_t sq = squares(NULL, 0, n, 0), mx = hash_max(NULL, 0, n, 0);
    double d = dot(&j.v, 0, n, 0.0);
    FG_CHECK(j.sq == sq, "sum of squares %llu, expected %llu", (unsigned long long)j.sq, (unsigned long long)sq);
    FG_CHECK(j.mx == mx, "max %llu, expected %llu", (unsigned long long)j.mx, (unsigned long long)mx);
    /* Partial sums meet in any order: equal up to rounding. */
    FG_CHECK(fabs(j.d - d) <= 1e-9 * fabs(d), "dot %.17g, expected %.17g", j.d, d);
    printf("reduce: sum of squares %llu, max %llu, dot %.6f under %s\n", (unsigned long long)sq,
           (unsigned long long)mx, d, spec);
    free(x), free(y);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
