// The C++ wrapper (finegrain.hpp): fib with finegrain::invoke and lambdas,
// a parallel_for and a parallel_reduce, and an exception thrown in a task
// coming back to the caller, all checked.
//
//   fib_cpp [policy] [threads] [n]
#include <finegrain.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

static uint64_t fib(unsigned n) {
    if (n < 2)
        return n;
    uint64_t a = 0, b = 0;
    finegrain::invoke([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
    return a + b;
}

static uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "ws";
    size_t threads = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
    unsigned n = argc > 3 ? (unsigned)std::strtoul(argv[3], nullptr, 10) : 27;
    try {
        finegrain::pool pool(spec, threads);
        uint64_t f = 0, sum = 0;
        std::vector<uint32_t> v(1 << 20);
        bool caught = false;
        pool.run([&] {
            f = fib(n);
            finegrain::parallel_for(0, v.size(), 4096, [&](size_t lo, size_t hi) {
                for (size_t i = lo; i < hi; i++)
                    v[i] = (uint32_t)(i * 3);
            });
            sum = finegrain::parallel_reduce(
                0, v.size(), 4096, 0,
                [&](size_t lo, size_t hi, uint64_t acc) {
                    for (size_t i = lo; i < hi; i++)
                        acc += v[i];
                    return acc;
                },
                [](uint64_t a, uint64_t b) { return a + b; });
            try {
                finegrain::invoke([] {}, [] { throw std::runtime_error("from a task"); });
            } catch (const std::runtime_error &e) {
                caught = std::string(e.what()) == "from a task";
            }
        });
        CHECK(f == fib_serial(n));
        CHECK(sum == 3 * ((uint64_t)v.size() * (v.size() - 1) / 2));
        CHECK(caught);
        bool threw = false;
        try {
            finegrain::pool bad("no-such-policy", 1);
        } catch (const finegrain::error &e) {
            threw = e.status() == FG_ERR_POLICY;
        }
        CHECK(threw);
        std::printf("fib_cpp: fib(%u) = %llu, sum %llu under %s (%s)\n", n, (unsigned long long)f,
                    (unsigned long long)sum, spec, pool.stats().enabled ? "counted" : "not counted");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "fib_cpp: %s\n", e.what());
        return 1;
    }
    return 0;
}
