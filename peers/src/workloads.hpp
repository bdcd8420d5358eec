// Inputs, generators and serial references for every peer workload. Each one
// mirrors the Rust workload of the same name in
// crates/finegrain-workloads/src/ (PEERS.md there states the recipes):
// same key=value parameters, same generated input, same result, same task
// granularity, so a peer's time is for the same work as finegrain's and Rayon's.
//
// The divide-and-conquer and loop kernels are written once here, generic over
// a "Par" policy, exactly as the Rust kernels are generic over `Par`; the
// serial reference is the SerialPar instance (the serial elision) and each
// peer supplies its own policy. A Par provides:
//
//   void join(A a, B b)          run a and b, possibly in parallel; a is run by
//                                the caller, b is offered to thieves
//   void for_each_chunk(lo, hi, grain, f)
//                                call f(l, h) on disjoint subranges covering
//                                [lo, hi); the runtime may hand f more than
//                                `grain` iterations, never split below it
//   u64 sum_chunks(lo, hi, grain, f)
//                                the wrapping sum of f(l, h) over such subranges
//   void spawn_each(k, f)        run f(0), ..., f(k - 1), each as a task of its
//                                own, and return when all have finished (a
//                                finegrain::scope with one spawn per call;
//                                used inside region)
//   auto region(F f)             run f, whose body uses join (OpenMP needs a
//                                parallel region with one producer for tasks)
//
// fib and uts are written per runtime in the peer files instead: fib because
// it is the spawn-overhead benchmark and should show the runtime's own idiom
// with nothing in between, uts because its parallel form (a flat dynamic task
// set, finegrain's `phase`) has no join.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "common.hpp"

namespace peers {

// The chunk finegrain::reduce picks for a range of `len` iterations on
// `threads` threads (crates/finegrain/src/loops.rs, default_grain).
inline size_t default_grain(size_t len, int threads) {
    size_t g = len / (static_cast<size_t>(threads) * 64);
    return std::clamp<size_t>(g, 1, 1024);
}

// Everything on the calling thread, in order.
struct SerialPar {
    template <class A, class B>
    void join(A&& a, B&& b) const {
        a();
        b();
    }
    template <class F>
    void for_each_chunk(size_t lo, size_t hi, size_t grain, F&& f) const {
        for (size_t l = lo; l < hi; l += grain) f(l, std::min(hi, l + grain));
    }
    template <class F>
    u64 sum_chunks(size_t lo, size_t hi, size_t grain, F&& f) const {
        u64 total = 0;
        for (size_t l = lo; l < hi; l += grain) total += f(l, std::min(hi, l + grain));
        return total;
    }
    template <class F>
    void spawn_each(size_t k, F&& f) const {
        for (size_t i = 0; i < k; ++i) f(i);
    }
    template <class F>
    auto region(F&& f) const {
        return f();
    }
};

// The digest of x_0..x_{len-1} (support/digest.rs): a loop over chunks of
// DIGEST_GRAIN positions, each summing its terms, as the Rust fold_chunks does.
constexpr size_t DIGEST_GRAIN = 512;
template <class P, class Get>
u64 digest(const P& p, size_t len, Get&& get) {
    return p.sum_chunks(0, len, DIGEST_GRAIN, [&](size_t lo, size_t hi) {
        u64 h = 0;
        for (size_t i = lo; i < hi; ++i) h += digest_term(i, get(i));
        return h;
    });
}

// ---------------------------------------------------------------- fib
// Doubly recursive Fibonacci with no cutoff (recursive/fib.rs): almost all of the
// parallel version's time is spawn/join overhead, which is what it measures.
inline u64 fib_serial(u64 n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

struct Fib {
    using Result = u64;
    u64 n;
    explicit Fib(Args& a) : n(a.u64_of("n")) {
        if (n > 90) usage_error("fib: n must be <= 90");
    }
    Result serial() const { return fib_serial(n); }
    std::string check(Result ref, Result got) const { return check_exact(ref, got); }
};

// ---------------------------------------------------------------- nqueens
// Bitmask backtracking (recursive/nqueens.rs). While fewer than `par_depth` queens
// are on the board, a node spawns one task per free column of the next queen
// (a scope per node, as Cilk's nqueens and the Rust version do) and adds its
// children's counts once they have all finished; from `par_depth` queens on,
// the rest of the search is serial inside the task.
struct Board {
    u32 row = 0, cols = 0, left = 0, right = 0;
    u32 free(u32 all) const { return all & ~(cols | left | right); }
    Board place(u32 bit) const { return Board{row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1}; }
};

inline u64 nqueens_serial(u32 n, Board b) {
    if (b.row == n) return 1;
    u32 free = b.free((1u << n) - 1);
    u64 count = 0;
    while (free != 0) {
        u32 bit = free & (0u - free);
        free ^= bit;
        count += nqueens_serial(n, b.place(bit));
    }
    return count;
}

struct NQueens {
    using Result = u64;
    u32 n;
    u32 par_depth;
    explicit NQueens(Args& a) : n(static_cast<u32>(a.u64_of("n"))), par_depth(static_cast<u32>(a.u64_of("par_depth"))) {
        if (n < 1 || n > 31) usage_error("nqueens: n must be in 1..=31");
    }
    Result serial() const { return nqueens_serial(n, Board{}); }

    template <class P>
    u64 search(const P& p, Board b) const {
        // A full board (only possible when par_depth > n) is one solution.
        if (b.row >= par_depth || b.row == n) return nqueens_serial(n, b);
        // Children in increasing column order, as the Rust version spawns them;
        // each task writes its own slot.
        Board kids[32];
        u64 counts[32];
        size_t k = 0;
        u32 free = b.free((1u << n) - 1);
        for (u32 c = 0; c < n; ++c)
            if (free & (1u << c)) kids[k++] = b.place(1u << c);
        p.spawn_each(k, [&](size_t i) { counts[i] = search(p, kids[i]); });
        u64 total = 0;
        for (size_t i = 0; i < k; ++i) total += counts[i];
        return total;
    }
    template <class P>
    Result run(const P& p) const {
        return p.region([&] { return search(p, Board{}); });
    }
    std::string check(Result ref, Result got) const { return check_exact(ref, got); }
};

// ---------------------------------------------------------------- uts
// Unbalanced tree with geometric branching (recursive/uts.rs). A node is a 64-bit
// state and a depth; its children's states are the first outputs of
// SplitMix64(state), and its child count is floor(ln(1 - u) / ln(b / (1 + b)))
// for u the top 53 bits of the state as a fraction. The root has exactly `root`
// children; nodes at `depth` are leaves. std::log and Rust's f64::ln are both
// glibc's log, so the tree is bit-for-bit the same.
struct UtsNode {
    u64 state;
    u32 depth;
};

struct UtsTree {
    u64 seed;
    double branching;
    u64 root;
    u32 depth;
    u32 serial_levels;
    double ln_q;

    UtsNode root_node() const { return UtsNode{SplitMix64(seed).next_u64(), 0}; }
    u64 num_children(UtsNode n) const {
        if (n.depth >= depth) return 0;
        if (n.depth == 0) return root;
        double u = static_cast<double>(n.state >> 11) * (1.0 / static_cast<double>(1ull << 53));
        return static_cast<u64>(std::floor(std::log(1.0 - u) / ln_q));
    }
    template <class F>
    void for_children(UtsNode n, F&& f) const {
        SplitMix64 g(n.state);
        u64 k = num_children(n);
        for (u64 i = 0; i < k; ++i) f(UtsNode{g.next_u64(), n.depth + 1});
    }
    u64 count_serial(UtsNode n) const {
        u64 total = 1;
        for_children(n, [&](UtsNode c) { total += count_serial(c); });
        return total;
    }
    // Subtrees this close to the depth limit are counted inside one task.
    bool is_bottom(UtsNode n) const { return n.depth + serial_levels >= depth; }
};

// One counter per thread on its own cache line, as the Rust version keeps, so
// that counting is not a contended atomic.
struct alignas(128) UtsCounter {
    std::atomic<u64> value{0};
};

struct Uts {
    using Result = u64;
    UtsTree tree;
    explicit Uts(Args& a) {
        tree.branching = a.f64_of("b");
        tree.depth = static_cast<u32>(a.u64_of("depth"));
        tree.root = a.u64_of("root");
        tree.seed = a.u64_of("seed");
        tree.serial_levels = static_cast<u32>(a.u64_of("serial_levels"));
        if (!(tree.branching > 0)) usage_error("uts: b must be > 0");
        tree.ln_q = std::log(tree.branching / (1.0 + tree.branching));
    }
    Result serial() const { return tree.count_serial(tree.root_node()); }
    std::string check(Result ref, Result got) const { return check_exact(ref, got); }
};

// ---------------------------------------------------------------- cilksort
// Cilk-5's cilksort (recursive/cilksort.rs): sort quarters in parallel, merge
// pairs of quarters into the buffer in parallel, merge the halves back; a
// merge splits at the middle key of the longer input, found by binary search
// in the shorter. Leaves: std::sort at <= sort_leaf keys, a serial merge at
// <= merge_leaf output keys or with an empty input. The timed run includes
// copying the input and digesting the output (a chunked loop), as the Rust run
// does.
struct CilkSort {
    using Result = Digested;
    std::vector<u64> keys;
    u64 seed;
    size_t sort_leaf, merge_leaf;

    explicit CilkSort(Args& a) : seed(a.u64_of("seed")), sort_leaf(a.u64_of("sort_leaf")), merge_leaf(a.u64_of("merge_leaf")) {
        u64 n = a.u64_of("n");
        // Below 3 a quarter can be empty while the last one keeps all keys,
        // and the recursion would never reach a leaf.
        if (sort_leaf < 3) usage_error("cilksort: sort_leaf must be >= 3");
        SplitMix64 g(seed);
        keys.resize(n);
        for (auto& k : keys) k = g.next_u64();
    }

    static void merge_serial(const u64* x, size_t nx, const u64* y, size_t ny, u64* out) {
        size_t i = 0, j = 0;
        for (size_t o = 0; o < nx + ny; ++o) {
            if (j == ny || (i < nx && x[i] <= y[j])) out[o] = x[i++];
            else out[o] = y[j++];
        }
    }

    template <class P>
    void merge(const P& p, const u64* x, size_t nx, const u64* y, size_t ny, u64* out) const {
        if (nx < ny) return merge(p, y, ny, x, nx, out);
        if (nx + ny <= merge_leaf || ny == 0) return merge_serial(x, nx, y, ny, out);
        size_t mx = nx / 2;
        size_t my = static_cast<size_t>(std::lower_bound(y, y + ny, x[mx]) - y);
        p.join([&] { merge(p, x, mx, y, my, out); }, [&] { merge(p, x + mx, nx - mx, y + my, ny - my, out + mx + my); });
    }

    template <class P>
    void sort(const P& p, u64* a, u64* tmp, size_t n) const {
        if (n <= sort_leaf) {
            std::sort(a, a + n);
            return;
        }
        size_t q = n / 4;
        p.join([&] { p.join([&] { sort(p, a, tmp, q); }, [&] { sort(p, a + q, tmp + q, q); }); },
               [&] { p.join([&] { sort(p, a + 2 * q, tmp + 2 * q, q); }, [&] { sort(p, a + 3 * q, tmp + 3 * q, n - 3 * q); }); });
        p.join([&] { merge(p, a, q, a + q, q, tmp); }, [&] { merge(p, a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q); });
        merge(p, tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
    }

    template <class P>
    Result run(const P& p) const {
        std::vector<u64> a(keys);
        std::vector<u64> tmp(a.size());
        p.region([&] {
            sort(p, a.data(), tmp.data(), a.size());
            return 0;
        });
        const u64* sorted = a.data();
        return Digested{a.size(), digest(p, a.size(), [sorted](size_t i) { return sorted[i]; })};
    }
    Result serial() const { return run(SerialPar{}); }
    std::string check(const Result& ref, const Result& got) const { return check_exact(ref, got); }
};

// ---------------------------------------------------------------- matmul
// Dense C = A * B (dense/matmul.rs) in a quadrant-recursive layout down to
// 16 x 16 row-major tiles, so every quadrant is a contiguous quarter of its
// parent. A step computes C's four quadrants in parallel for the first half of
// the inner dimension, then again for the second half. The timed run includes
// allocating C and converting it back to row-major, as the Rust run does.
struct MatMul {
    using Result = std::vector<double>;
    static constexpr size_t LEAF = 16;
    static constexpr double TOLERANCE = 1e-12;
    size_t n;
    std::vector<double> a, b;  // tiled

    static size_t tiled_index(size_t i, size_t j, size_t side) {
        if (side == LEAF) return i * LEAF + j;
        size_t h = side / 2;
        size_t quadrant = 2 * (i / h) + j / h;
        return quadrant * h * h + tiled_index(i % h, j % h, h);
    }

    explicit MatMul(Args& args) : n(args.u64_of("n")) {
        u64 seed = args.u64_of("seed");
        if (n < LEAF || (n & (n - 1)) != 0) usage_error("matmul: n must be a power of two >= 16");
        // Row-major A, then row-major B, from one stream.
        SplitMix64 g(seed);
        a.resize(n * n);
        b.resize(n * n);
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) a[tiled_index(i, j, n)] = g.unit();
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) b[tiled_index(i, j, n)] = g.unit();
    }

    // C += A * B on one tile, i-k-j so the inner loop is a contiguous axpy.
    __attribute__((noinline)) static void leaf(double* c, const double* a, const double* b) {
        for (size_t i = 0; i < LEAF; ++i) {
            double* ci = c + i * LEAF;
            for (size_t k = 0; k < LEAF; ++k) {
                double aik = a[i * LEAF + k];
                const double* bk = b + k * LEAF;
                for (size_t j = 0; j < LEAF; ++j) ci[j] += aik * bk[j];
            }
        }
    }

    template <class P>
    static void multiply_add(const P& p, double* c, const double* a, const double* b, size_t side) {
        if (side == LEAF) return leaf(c, a, b);
        size_t h = side / 2, q = h * h;
        const double *a00 = a, *a01 = a + q, *a10 = a + 2 * q, *a11 = a + 3 * q;
        const double *b00 = b, *b01 = b + q, *b10 = b + 2 * q, *b11 = b + 3 * q;
        double *c00 = c, *c01 = c + q, *c10 = c + 2 * q, *c11 = c + 3 * q;
        p.join([&] { p.join([&] { multiply_add(p, c00, a00, b00, h); }, [&] { multiply_add(p, c01, a00, b01, h); }); },
               [&] { p.join([&] { multiply_add(p, c10, a10, b00, h); }, [&] { multiply_add(p, c11, a10, b01, h); }); });
        p.join([&] { p.join([&] { multiply_add(p, c00, a01, b10, h); }, [&] { multiply_add(p, c01, a01, b11, h); }); },
               [&] { p.join([&] { multiply_add(p, c10, a11, b10, h); }, [&] { multiply_add(p, c11, a11, b11, h); }); });
    }

    template <class P>
    Result run(const P& p) const {
        std::vector<double> c(n * n, 0.0);
        p.region([&] {
            multiply_add(p, c.data(), a.data(), b.data(), n);
            return 0;
        });
        std::vector<double> out(n * n);
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) out[i * n + j] = c[tiled_index(i, j, n)];
        return out;
    }
    Result serial() const { return run(SerialPar{}); }
    std::string check(const Result& ref, const Result& got) const { return check_close(ref, got, TOLERANCE); }
};

// ---------------------------------------------------------------- spmv
// x_{t+1} = A x_t for `iters` steps (sparse/spmv.rs, matrix recipe in
// sparse/random.rs). One SplitMix64 stream: per row, len = 1 + below(2k - 1),
// then len (column = below(n), value = unit() / len) pairs; the row is sorted
// by column keeping the first-drawn entry of each column. Then x_0 is n
// unit() draws from the same stream. A step is a loop over rows in chunks of
// 32; each row is summed serially in column order.
struct SpMV {
    using Result = std::vector<double>;
    static constexpr size_t ROWS_PER_TASK = 32;
    static constexpr double TOLERANCE = 1e-12;
    size_t n;
    u64 iters;
    std::vector<size_t> row_ptr;
    std::vector<u32> col_idx;
    std::vector<double> vals;
    std::vector<double> x0;

    explicit SpMV(Args& args) : n(args.u64_of("n")), iters(args.u64_of("iters")) {
        u64 k = args.u64_of("k");
        u64 seed = args.u64_of("seed");
        if (n < 1 || n > 0xffffffffull || k < 1) usage_error("spmv: need 1 <= n < 2^32 and k >= 1");
        SplitMix64 g(seed);
        row_ptr.reserve(n + 1);
        row_ptr.push_back(0);
        col_idx.reserve(n * k);
        vals.reserve(n * k);
        std::vector<std::pair<u32, double>> row;
        for (size_t r = 0; r < n; ++r) {
            size_t len = 1 + g.below(2 * k - 1);
            row.clear();
            for (size_t e = 0; e < len; ++e) {
                u32 c = static_cast<u32>(g.below(n));
                double v = g.unit() / static_cast<double>(len);
                row.emplace_back(c, v);
            }
            // Stable, so that among equal columns the first drawn comes first
            // and is the one kept.
            std::stable_sort(row.begin(), row.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
            for (size_t e = 0; e < row.size(); ++e) {
                if (e > 0 && row[e].first == row[e - 1].first) continue;
                col_idx.push_back(row[e].first);
                vals.push_back(row[e].second);
            }
            row_ptr.push_back(col_idx.size());
        }
        x0.resize(n);
        for (auto& x : x0) x = g.unit();
    }

    double row_dot(size_t i, const double* x) const {
        double s = 0.0;
        for (size_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) s += vals[e] * x[col_idx[e]];
        return s;
    }

    template <class P>
    Result run(const P& p) const {
        std::vector<double> x(x0), y(n, 0.0);
        for (u64 t = 0; t < iters; ++t) {
            const double* xs = x.data();
            double* ys = y.data();
            p.for_each_chunk(0, n, ROWS_PER_TASK, [&](size_t lo, size_t hi) {
                for (size_t i = lo; i < hi; ++i) ys[i] = row_dot(i, xs);
            });
            std::swap(x, y);
        }
        return x;
    }
    Result serial() const {
        std::vector<double> x(x0), y(n, 0.0);
        for (u64 t = 0; t < iters; ++t) {
            for (size_t i = 0; i < n; ++i) y[i] = row_dot(i, x.data());
            std::swap(x, y);
        }
        return x;
    }
    std::string check(const Result& ref, const Result& got) const { return check_close(ref, got, TOLERANCE); }
};

// ---------------------------------------------------------------- sum
// The wrapping sum over i in 0..n of the top 32 bits of the i-th SplitMix64
// output for `seed` (dense/sum.rs), in closed form so iterations are
// independent: a flat loop that measures splitting and reducing a range.
struct Sum {
    using Result = u64;
    u64 n, seed;
    int threads;
    explicit Sum(Args& a) : n(a.u64_of("n")), seed(a.u64_of("seed")), threads(a.threads) {}
    u64 f(u64 i) const { return mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull) >> 32; }
    Result serial() const {
        u64 total = 0;
        for (u64 i = 0; i < n; ++i) total += f(i);
        return total;
    }
    template <class P>
    Result run(const P& p) const {
        return p.sum_chunks(0, n, default_grain(n, threads), [&](size_t lo, size_t hi) {
            u64 s = 0;
            for (size_t i = lo; i < hi; ++i) s += f(i);
            return s;
        });
    }
    std::string check(Result ref, Result got) const { return check_exact(ref, got); }
};

}  // namespace peers
