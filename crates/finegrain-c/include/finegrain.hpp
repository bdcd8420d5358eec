// finegrain.hpp: a header-only C++ wrapper of finegrain.h: a pool as an RAII
// object, fork-join, loops and reductions with lambdas, errors as exceptions.
//
//   finegrain::pool pool("adm-central", 2);
//   pool.run([&] {
//       finegrain::invoke([&] { a = f(); }, [&] { b = g(); });
//       finegrain::parallel_for(0, n, 1024, [&](size_t lo, size_t hi) { ... });
//   });
//
// A lambda runs through a C trampoline that catches every exception: no
// exception crosses the C library. The first exception a call's lambdas
// throw is rethrown by that call once all its tasks have finished. Lambdas
// run on the pool's worker threads, several at once (as in finegrain.h).
#ifndef FINEGRAIN_HPP
#define FINEGRAIN_HPP

#include <finegrain.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace finegrain {

// A failed call: its status and the library's message.
class error : public std::runtime_error {
  public:
    error(fg_status s, const char *msg) : std::runtime_error(msg), status_(s) {}
    fg_status status() const noexcept { return status_; }

  private:
    fg_status status_;
};

inline void check(fg_status s) {
    if (s != FG_OK)
        throw error(s, fg_last_error());
}

namespace detail {

// The first exception thrown by the lambdas of one call.
class first_exception {
  public:
    void keep() noexcept {
        std::lock_guard<std::mutex> g(m_);
        if (!e_)
            e_ = std::current_exception();
    }
    void rethrow() {
        if (e_)
            std::rethrow_exception(e_);
    }

  private:
    std::mutex m_;
    std::exception_ptr e_;
};

template <class F> struct call {
    F *f;
    first_exception *err;
};

template <class F> void run0(void *p) noexcept {
    auto *c = static_cast<call<F> *>(p);
    try {
        (*c->f)();
    } catch (...) {
        c->err->keep();
    }
}

template <class F> void run_range(void *p, size_t lo, size_t hi) noexcept {
    auto *c = static_cast<call<F> *>(p);
    try {
        (*c->f)(lo, hi);
    } catch (...) {
        c->err->keep();
    }
}

template <class Fold, class Combine> struct reduce_call {
    Fold *fold;
    Combine *combine;
    first_exception *err;
};

template <class Fold, class Combine> uint64_t fold_u64(void *p, size_t lo, size_t hi, uint64_t acc) noexcept {
    auto *c = static_cast<reduce_call<Fold, Combine> *>(p);
    try {
        return (*c->fold)(lo, hi, acc);
    } catch (...) {
        c->err->keep();
        return acc;
    }
}

template <class Fold, class Combine> uint64_t combine_u64(void *p, uint64_t a, uint64_t b) noexcept {
    auto *c = static_cast<reduce_call<Fold, Combine> *>(p);
    try {
        return (*c->combine)(a, b);
    } catch (...) {
        c->err->keep();
        return a;
    }
}

} // namespace detail

// A pool of worker threads (fg_pool_new / fg_pool_destroy). Movable, not copyable.
class pool {
  public:
    pool(const char *policy_spec, size_t threads) { check(fg_pool_new(policy_spec, threads, &p_)); }
    pool(const pool &) = delete;
    pool &operator=(const pool &) = delete;
    pool(pool &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    pool &operator=(pool &&o) noexcept {
        std::swap(p_, o.p_);
        return *this;
    }
    ~pool() {
        if (p_)
            fg_pool_destroy(p_);
    }

    // Run `f()` on one of the pool's workers and wait for it.
    template <class F> void run(F &&f) {
        using Fn = std::remove_reference_t<F>;
        detail::first_exception err;
        detail::call<Fn> c{&f, &err};
        check(fg_pool_run(p_, detail::run0<Fn>, &c));
        err.rethrow();
    }

    fg_stats stats() const {
        fg_stats s;
        check(fg_pool_stats(p_, &s));
        return s;
    }

    std::string stats_json() const {
        char *s = nullptr;
        check(fg_pool_stats_json(p_, &s));
        std::string out(s);
        fg_string_free(s);
        return out;
    }

    fg_pool *handle() const noexcept { return p_; }

  private:
    fg_pool *p_ = nullptr;
};

// Run `a()` and `b()`, possibly in parallel (fg_invoke).
template <class A, class B> void invoke(A &&a, B &&b) {
    using FA = std::remove_reference_t<A>;
    using FB = std::remove_reference_t<B>;
    detail::first_exception err;
    detail::call<FA> ca{&a, &err};
    detail::call<FB> cb{&b, &err};
    check(fg_invoke(detail::run0<FA>, &ca, detail::run0<FB>, &cb));
    err.rethrow();
}

// `f(lo, hi)` over pieces of at most `grain` iterations of [begin, end) (fg_parallel_for).
template <class F> void parallel_for(size_t begin, size_t end, size_t grain, F &&f) {
    using Fn = std::remove_reference_t<F>;
    detail::first_exception err;
    detail::call<Fn> c{&f, &err};
    check(fg_parallel_for(begin, end, grain, detail::run_range<Fn>, &c));
    err.rethrow();
}

// Reduce [begin, end) to a uint64_t: `fold(lo, hi, acc)` per piece, `combine(a, b)`
// (associative, commutative, `identity` neutral) between tasks (fg_parallel_reduce_u64).
template <class Fold, class Combine>
uint64_t parallel_reduce(size_t begin, size_t end, size_t grain, uint64_t identity, Fold &&fold, Combine &&combine) {
    using Fo = std::remove_reference_t<Fold>;
    using Co = std::remove_reference_t<Combine>;
    detail::first_exception err;
    detail::reduce_call<Fo, Co> c{&fold, &combine, &err};
    uint64_t out = identity;
    check(fg_parallel_reduce_u64(begin, end, grain, identity, detail::fold_u64<Fo, Co>, detail::combine_u64<Fo, Co>, &c,
                                 &out));
    err.rethrow();
    return out;
}

} // namespace finegrain

#endif
