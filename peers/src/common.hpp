// Shared by peer_tbb and peer_omp: argument parsing, the seeded generator and
// digest that the Rust workloads use, and the timing harness that prints the
// JSON protocol. Nothing here depends on a parallel runtime, so the two peers
// differ only in their parallel kernels and in how they fix the thread count.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace peers {

using u64 = std::uint64_t;
using u32 = std::uint32_t;

// Bad invocations exit 2 so the caller can tell "you called me wrong" apart
// from a crash or a failed check.
[[noreturn]] inline void usage_error(const std::string& msg) {
    std::fprintf(stderr, "peer: %s\n", msg.c_str());
    std::fprintf(stderr,
                 "usage: <peer> <workload> <key=value ...> threads=<t> [reps=<r>] [mode=parallel|serial] [show=1]\n");
    std::exit(2);
}

// The SplitMix64 output function, on its own.
inline u64 mix(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// splitmix64, bit-for-bit the same as finegrain_workloads::util::SplitMix64,
// so that a seed produces the same input on both sides.
struct SplitMix64 {
    u64 state;
    explicit SplitMix64(u64 seed) : state(seed) {}
    u64 next_u64() {
        state += 0x9E3779B97F4A7C15ull;
        return mix(state);
    }
    // Uniform in 0..n by the multiply-high method (Lemire), as on the Rust side.
    u64 below(u64 n) { return static_cast<u64>((static_cast<unsigned __int128>(next_u64()) * n) >> 64); }
    // Uniform in [0, 1) from the top 53 bits.
    double unit() { return static_cast<double>(next_u64() >> 11) * (1.0 / static_cast<double>(1ull << 53)); }
};

// One term of the position-sensitive digest of support/digest.rs: the digest of
// x_0..x_{n-1} is the wrapping sum of digest_term(i, x_i). Terms are
// independent, so a parallel loop can compute it, as the Rust side does.
inline u64 digest_term(u64 i, u64 x) { return mix(x + (i + 1) * 0x9E3779B97F4A7C15ull); }

// key=value arguments. Every key a workload reads is marked used, and any key
// left unused is an error: a typo must not silently fall back to other work.
class Args {
   public:
    std::string workload;
    int threads = 0;
    int reps = 1;
    bool serial_mode = false;
    bool show = false;

    static Args parse(int argc, char** argv) {
        Args a;
        if (argc < 2) usage_error("missing workload");
        a.workload = argv[1];
        for (int i = 2; i < argc; ++i) {
            const char* eq = std::strchr(argv[i], '=');
            if (!eq || eq == argv[i]) usage_error(std::string("expected key=value, got '") + argv[i] + "'");
            std::string key(argv[i], eq - argv[i]);
            if (a.kv_.count(key)) usage_error("duplicate key '" + key + "'");
            a.kv_[key] = eq + 1;
        }
        a.threads = static_cast<int>(a.u64_of("threads"));
        if (a.threads < 1) usage_error("threads must be >= 1");
        a.reps = a.has("reps") ? static_cast<int>(a.u64_of("reps")) : 1;
        if (a.has("mode")) {
            std::string m = a.str_of("mode");
            if (m == "serial") a.serial_mode = true;
            else if (m != "parallel") usage_error("mode must be parallel or serial");
        }
        a.show = a.has("show") && a.u64_of("show") != 0;
        return a;
    }

    bool has(const std::string& key) const { return kv_.count(key) != 0; }

    std::string str_of(const std::string& key) {
        auto it = kv_.find(key);
        if (it == kv_.end()) usage_error("missing " + key + "=<value> for " + workload);
        used_.insert(key);
        return it->second;
    }

    u64 u64_of(const std::string& key) {
        std::string s = str_of(key);
        char* end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(s.c_str(), &end, 0);
        if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-')
            usage_error("bad unsigned integer for " + key + ": '" + s + "'");
        return v;
    }

    double f64_of(const std::string& key) {
        std::string s = str_of(key);
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0') usage_error("bad number for " + key + ": '" + s + "'");
        return v;
    }

    // Called after the workload has read its keys.
    void reject_unused() const {
        for (auto& kv : kv_)
            if (!used_.count(kv.first)) usage_error("unknown key '" + kv.first + "' for " + workload);
    }

   private:
    std::map<std::string, std::string> kv_;
    std::set<std::string> used_;
};

inline std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

// ---- results and their comparison

// A large result (a sorted array) reduced to its length and digest.
struct Digested {
    u64 len = 0;
    u64 hash = 0;
    bool operator==(const Digested& o) const { return len == o.len && hash == o.hash; }
};

inline std::string fmt_f64(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

// For show=1: enough of a result to compare it by eye with the Rust side's.
inline std::string describe_result(u64 x) { return std::to_string(x); }
inline std::string describe_result(const Digested& d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%" PRIu64 " items #%016" PRIx64, d.len, d.hash);
    return buf;
}
inline std::string describe_result(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    std::string out = std::to_string(v.size()) + " floats, sum " + fmt_f64(s);
    if (!v.empty()) out += ", first " + fmt_f64(v.front()) + ", last " + fmt_f64(v.back());
    return out;
}

inline std::string check_exact(u64 ref, u64 got) {
    return ref == got ? "" : "expected " + std::to_string(ref) + ", got " + std::to_string(got);
}
inline std::string check_exact(const Digested& ref, const Digested& got) {
    return ref == got ? "" : "expected " + describe_result(ref) + ", got " + describe_result(got);
}

// |a - b| <= rel * max(|a|, |b|) elementwise, as support/tolerance.rs with Scale::Each:
// parallel code may add in another order than the serial loop.
inline std::string check_close(const std::vector<double>& ref, const std::vector<double>& got, double rel) {
    if (ref.size() != got.size())
        return "expected " + std::to_string(ref.size()) + " values, got " + std::to_string(got.size());
    for (size_t i = 0; i < ref.size(); ++i) {
        double a = ref[i], b = got[i];
        double bound = rel * std::max(std::fabs(a), std::fabs(b));
        if (!(std::fabs(a - b) <= bound))
            return "element " + std::to_string(i) + ": expected " + fmt_f64(a) + ", got " + fmt_f64(b);
    }
    return "";
}

// The timed call lives in its own non-inlined function so that callgrind can
// restrict collection to it (--toggle-collect='*timed_region*'), which is how
// the per-spawn instruction counts in README.md are measured.
template <class F>
__attribute__((noinline)) auto timed_region(F& f) {
    return f();
}

// One workload type W provides:
//   explicit W(Args&)            read keys, generate the input (untimed)
//   Result serial() const        the serial reference
//   std::string check(ref, got)  "" when equal, else a short reason
// `par` is the peer's parallel kernel, Result(const W&); whatever the Rust
// version does inside its timed call (copying the input to sort, allocating
// the output) the kernel does too. `Rt` fixes the thread count and starts its
// threads before anything is timed; the serial reference runs once, untimed.
template <class W, class Rt, class Par>
int drive(Args& args, Par par) {
    const W w(args);
    args.reject_unused();
    Rt rt(args.threads);
    const auto reference = w.serial();
    if (args.show) std::fprintf(stderr, "%s reference: %s\n", args.workload.c_str(), describe_result(reference).c_str());
    const char* label = args.serial_mode ? "serial" : Rt::name;
    for (int rep = 0; rep < args.reps; ++rep) {
        auto body = [&] { return args.serial_mode ? w.serial() : rt.run([&] { return par(w); }); };
        auto t0 = std::chrono::steady_clock::now();
        auto got = timed_region(body);
        auto t1 = std::chrono::steady_clock::now();
        std::string why = w.check(reference, got);
        long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        std::printf("{\"runtime\":\"%s\",\"workload\":\"%s\",\"threads\":%d,\"rep\":%d,\"time_ns\":%lld,\"check\":\"%s\"}\n",
                    label, json_escape(args.workload).c_str(), args.threads, rep, ns,
                    why.empty() ? "ok" : json_escape(why).c_str());
        // The caller may read lines as they come; do not hold them in a buffer.
        std::fflush(stdout);
    }
    return 0;
}

using Entry = std::function<int(Args&)>;

inline int dispatch(int argc, char** argv, const std::map<std::string, Entry>& table) {
    Args args = Args::parse(argc, argv);
    auto it = table.find(args.workload);
    if (it == table.end()) {
        std::string known;
        for (auto& kv : table) known += " " + kv.first;
        usage_error("unknown workload '" + args.workload + "' (known:" + known + ")");
    }
    return it->second(args);
}

}  // namespace peers
