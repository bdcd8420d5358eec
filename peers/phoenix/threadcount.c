/* LD_PRELOAD shim for peer_phoenix: counts the threads a Phoenix program
 * creates, so that the driver can check that threads=t was honoured.
 *
 * Wraps pthread_create. At exit it writes one line
 *     created=<N> maxlive=<M>
 * to the file named by PHOENIX_THREADCOUNT_FILE (nothing if unset): N threads
 * created in all, at most M of them alive at once. The wrapper adds two atomic
 * updates per thread creation and exit, nothing on any other path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static long created, live, maxlive;

struct start {
    void *(*fn)(void *);
    void *arg;
};

static void thread_gone(void *unused)
{
    (void)unused;
    __atomic_sub_fetch(&live, 1, __ATOMIC_SEQ_CST);
}

static void *trampoline(void *p)
{
    struct start s = *(struct start *)p;
    void *ret;
    free(p);
    pthread_cleanup_push(thread_gone, NULL);
    ret = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return ret;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn real;
    struct start *s;
    long now, seen;
    int rc;

    if (!real)
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    s = malloc(sizeof *s);
    if (!s)
        return real(th, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    now = __atomic_add_fetch(&live, 1, __ATOMIC_SEQ_CST);
    rc = real(th, attr, trampoline, s);
    if (rc != 0) {
        __atomic_sub_fetch(&live, 1, __ATOMIC_SEQ_CST);
        free(s);
        return rc;
    }
    __atomic_add_fetch(&created, 1, __ATOMIC_SEQ_CST);
    seen = __atomic_load_n(&maxlive, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(&maxlive, &seen, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    return 0;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("PHOENIX_THREADCOUNT_FILE");
    FILE *f;
    if (!path || !*path)
        return;
    f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "created=%ld maxlive=%ld\n", __atomic_load_n(&created, __ATOMIC_SEQ_CST),
            __atomic_load_n(&maxlive, __ATOMIC_SEQ_CST));
    fclose(f);
}
