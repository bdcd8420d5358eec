// finegrain peer through its C API (crates/finegrain-c: finegrain.h and the
// C++ wrapper finegrain.hpp), compiled by the same compiler with the same
// flags as the oneTBB and OpenMP peers, over the same workloads.hpp: joins
// with fg_invoke, nqueens' and uts' spawns into a scope (fg_scope_run,
// fg_spawn, fg_sync), loops with fg_parallel_for and fg_parallel_reduce_u64.
// The policy is FINEGRAIN_POLICY (default ws, finegrain's default). See
// ../README.md for the protocol.
#include <finegrain.hpp>

#include <atomic>
#include <cstdlib>
#include <string>

#include "workloads.hpp"

namespace {
using namespace peers;

std::string policy() {
    const char* p = std::getenv("FINEGRAIN_POLICY");
    return p && *p ? p : "ws";
}

struct FgRuntime {
    static constexpr const char* name = "fg";
    finegrain::pool pool;
    explicit FgRuntime(int t) : pool(policy().c_str(), static_cast<size_t>(t)) {
        // Start the workers outside any timing.
        pool.run([] {});
    }
    template <class F>
    auto run(F&& f) {
        using R = decltype(f());
        if constexpr (std::is_void_v<R>) {
            pool.run(f);
        } else {
            R out{};
            pool.run([&] { out = f(); });
            return out;
        }
    }
};

// fg_scope_run / fg_spawn / fg_sync with a lambda per call. Nothing may
// throw inside a callback the C library runs (an exception cannot cross it):
// a failed call is kept and thrown once fg_scope_run has returned.
template <class F>
struct SpawnEach {
    F* f;
    size_t k;
    fg_status failed = FG_OK;
    struct Item {
        F* f;
        size_t i;
    };
    static void call(void* p) { (*static_cast<Item*>(p)->f)(static_cast<Item*>(p)->i); }
    static void body(fg_scope* s, void* p) {
        auto* self = static_cast<SpawnEach*>(p);
        std::vector<Item> items(self->k);
        for (size_t i = 0; i < self->k && self->failed == FG_OK; ++i) {
            items[i] = Item{self->f, i};
            self->failed = fg_spawn(s, call, &items[i]);
        }
        fg_status synced = fg_sync(s);
        if (self->failed == FG_OK) self->failed = synced;
    }
};

struct FgPar {
    template <class A, class B>
    void join(A&& a, B&& b) const {
        finegrain::invoke(a, b);
    }
    template <class F>
    void for_each_chunk(size_t lo, size_t hi, size_t grain, F&& f) const {
        finegrain::parallel_for(lo, hi, grain, f);
    }
    template <class F>
    u64 sum_chunks(size_t lo, size_t hi, size_t grain, F&& f) const {
        return finegrain::parallel_reduce(
            lo, hi, grain, 0, [&](size_t l, size_t h, uint64_t acc) { return acc + f(l, h); },
            [](uint64_t x, uint64_t y) { return x + y; });
    }
    template <class F>
    void spawn_each(size_t k, F&& f) const {
        using S = SpawnEach<std::remove_reference_t<F>>;
        S s{&f, k};
        finegrain::check(fg_scope_run(S::body, &s));
        finegrain::check(s.failed);
    }
    template <class F>
    auto region(F&& f) const {
        return f();
    }
};

u64 fib_fg(u64 n) {
    if (n < 2) return n;
    u64 a = 0, b = 0;
    finegrain::invoke([&] { a = fib_fg(n - 1); }, [&] { b = fib_fg(n - 2); });
    return a + b;
}

// A per-thread counter slot (the C API names no worker index): threads take
// slots in the order they first count.
size_t worker_slot() {
    static std::atomic<size_t> next{0};
    thread_local size_t me = next.fetch_add(1, std::memory_order_relaxed);
    return me;
}

// uts as finegrain's own version runs it: one phase (ADM's dynamic tasks of
// up to four words, here a node's state and depth), every node task
// enqueueing its children.
struct UtsPhase {
    const UtsTree* tree;
    UtsCounter* counters;
    size_t ncounters;
    std::atomic<int> failed{FG_OK};
    static void visit(fg_phase* ph, void* p, size_t state, size_t depth, size_t, size_t) {
        auto* u = static_cast<UtsPhase*>(p);
        UtsNode n{static_cast<u64>(state), static_cast<u32>(depth)};
        u64 found = 1;
        if (u->tree->is_bottom(n)) {
            found = u->tree->count_serial(n);
        } else {
            u->tree->for_children(n, [&](UtsNode c) {
                fg_status s = fg_phase_enqueue(ph, static_cast<size_t>(c.state), c.depth, 0, 0);
                if (s != FG_OK) u->failed.store(s);
            });
        }
        u->counters[worker_slot() % u->ncounters].value.fetch_add(found, std::memory_order_relaxed);
    }
};

u64 uts_fg(const Uts& w, int threads) {
    std::vector<UtsCounter> counters(static_cast<size_t>(threads));
    UtsPhase u{&w.tree, counters.data(), counters.size()};
    UtsNode root = w.tree.root_node();
    fg_task first{{static_cast<size_t>(root.state), root.depth, 0, 0}};
    finegrain::check(fg_phase_run(&first, 1, UtsPhase::visit, &u));
    finegrain::check(static_cast<fg_status>(u.failed.load()));
    u64 total = 0;
    for (auto& c : counters) total += c.value.load(std::memory_order_relaxed);
    return total;
}

}  // namespace

int main(int argc, char** argv) {
    using Rt = FgRuntime;
    const FgPar p;
    try {
        return dispatch(argc, argv, {
            {"fib", [](Args& a) { return drive<Fib, Rt>(a, [](const Fib& w) { return fib_fg(w.n); }); }},
            {"nqueens", [&](Args& a) { return drive<NQueens, Rt>(a, [&](const NQueens& w) { return w.run(p); }); }},
            {"uts", [](Args& a) { int t = a.threads; return drive<Uts, Rt>(a, [t](const Uts& w) { return uts_fg(w, t); }); }},
            {"cilksort", [&](Args& a) { return drive<CilkSort, Rt>(a, [&](const CilkSort& w) { return w.run(p); }); }},
            {"matmul", [&](Args& a) { return drive<MatMul, Rt>(a, [&](const MatMul& w) { return w.run(p); }); }},
            {"spmv", [&](Args& a) { return drive<SpMV, Rt>(a, [&](const SpMV& w) { return w.run(p); }); }},
            {"sum", [&](Args& a) { return drive<Sum, Rt>(a, [&](const Sum& w) { return w.run(p); }); }},
        });
    } catch (const finegrain::error& e) {
        std::fprintf(stderr, "peer_fg: %s\n", e.what());
        return 2;
    }
}
