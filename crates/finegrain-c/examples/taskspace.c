/* The thesis's task spaces (Yoo, "Locality-Aware Task Management on
 * Many-Core Processors", Stanford PhD thesis 2012, Listing 5.5, Table 5.2):
 * a 2-D blocked 5-point stencil as taskQEnqueue(taskfn, 2, sizes) /
 * taskQWait() under a flux hint (LMFlux_SetSharingVec), then the same space
 * under a binning hint and under signatures, each checked against a serial
 * sweep.
 *
 *   taskspace [policy] [threads] */
#include "common.h"

#define W 512
#define H 512
#define B 16 /* a task is a B x B block */

static double in[H][W], out[H][W], want[H][W];

static void cell(size_t y, size_t x, double (*dst)[W]) {
    double s = in[y][x];
    if (y > 0) s += in[y - 1][x];
    if (y + 1 < H) s += in[y + 1][x];
    if (x > 0) s += in[y][x - 1];
    if (x + 1 < W) s += in[y][x + 1];
    dst[y][x] = s / 5.0;
}

static void block(void *ctx, size_t i, size_t j, size_t k) {
    (void)ctx, (void)k;
    for (size_t y = j * B; y < (j + 1) * B; y++)
        for (size_t x = i * B; x < (i + 1) * B; x++)
            cell(y, x, out);
}

/* Binning: a block's key is its row of blocks. */
static uint64_t row_key(void *ctx, size_t i, size_t j, size_t k) {
    (void)ctx, (void)i, (void)k;
    return j;
}

static fg_signature sigs[(W / B) * (H / B)];

static void sweep(void *p) {
    const char *hint = p;
    size_t sizes[2] = {W / B, H / B};
    if (!strcmp(hint, "flux"))
        /* Neighbours along x share a column of B values, along y a row. */
        FG_TRY(LMFlux_SetSharingVec(B, B, 0));
    else if (!strcmp(hint, "bins"))
        FG_TRY(LMBin_SetMappingFn(row_key, 0, H / B - 1));
    else
        FG_TRY(LMSig_SetSigArray(sigs));
    FG_TRY(taskQEnqueue(block, 2, sizes));
    FG_TRY(taskQWait());
}

int main(int argc, char **argv) {
    const char *spec;
    fg_pool *pool = example_pool(argc, argv, &spec);
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
            in[y][x] = (double)((y * 31 + x * 17) % 101);
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
            cell(y, x, want);
    /* Signatures: each block touches its rows of `in`, as regions of it. */
    for (size_t j = 0; j < H / B; j++)
        for (size_t i = 0; i < W / B; i++)
            for (size_t y = j * B; y < (j + 1) * B; y++)
                FG_TRY(fg_signature_mark(&sigs[j * (W / B) + i], (size_t)&in[y][i * B], (size_t)in, sizeof in));
    const char *hints[3] = {"flux", "bins", "signatures"};
    for (int h = 0; h < 3; h++) {
        memset(out, 0, sizeof out);
        FG_TRY(fg_pool_run(pool, sweep, (void *)hints[h]));
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++)
                FG_CHECK(out[y][x] == want[y][x], "%s: out[%zu][%zu] = %g, expected %g", hints[h], y, x,
                         out[y][x], want[y][x]);
    }
    printf("taskspace: %dx%d blocks under flux, bins and signatures, %s\n", W / B, H / B, spec);
    FG_TRY(fg_pool_destroy(pool));
    return 0;
}
