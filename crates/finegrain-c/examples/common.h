/* What every C example shares: the command line (policy spec, threads),
 * a pool, and checks that print and exit non-zero. */
#ifndef FG_EXAMPLE_COMMON_H
#define FG_EXAMPLE_COMMON_H

#include <finegrain.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit with a message if a call failed. */
#define FG_TRY(call)                                                                \
    do {                                                                            \
        fg_status fg_try_s = (call);                                                \
        if (fg_try_s != FG_OK) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,       \
                    fg_status_name((int)fg_try_s), fg_last_error());                \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* Exit with a message if a result is wrong. */
#define FG_CHECK(cond, ...)                                                         \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fprintf(stderr, "\n");                                                  \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* argv[1]: policy spec (default "ws"); argv[2]: threads (default 2). */
static inline fg_pool *example_pool(int argc, char **argv, const char **spec_out) {
    const char *spec = argc > 1 ? argv[1] : "ws";
    size_t threads = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 2;
    fg_pool *pool = NULL;
    FG_TRY(fg_pool_new(spec, threads, &pool));
    if (spec_out)
        *spec_out = spec;
    return pool;
}

#endif
