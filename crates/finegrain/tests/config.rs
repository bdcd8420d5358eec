#![cfg(not(loom))]
//! Building pools: thread counts, policy specs and their error messages, and
//! the global pool's environment variables.
//!
//! The global pool exists once per process, so everything that touches it runs
//! in a child process: this test binary re-executed for the single test
//! `child_process_entry`, with `FINEGRAIN_TEST_CHILD` naming the scenario and
//! the `FINEGRAIN_*` variables set as the scenario needs.

use finegrain::{policies, Error, Policy, Pool};
use std::process::Command;

#[test]
fn zero_threads_is_an_error() {
    let e = Pool::builder().threads(0).build().unwrap_err();
    assert!(matches!(e, Error::ZeroThreads), "{e:?}");
    assert!(e.to_string().contains("at least one thread"), "{e}");
    assert!(matches!(Pool::new(0, "ws").unwrap_err(), Error::ZeroThreads));
}

#[test]
fn more_threads_than_the_maximum_is_an_error_naming_it() {
    for n in [finegrain::MAX_THREADS + 1, 100_000, usize::MAX] {
        let e = Pool::builder().threads(n).build().unwrap_err();
        assert!(matches!(e, Error::TooManyThreads { requested, max } if requested == n && max == finegrain::MAX_THREADS), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&finegrain::MAX_THREADS.to_string()) && msg.contains(&n.to_string()), "{msg}");
    }
}

#[test]
fn stacks_below_the_minimum_are_errors() {
    for bytes in [0, 1, finegrain::MIN_STACK_SIZE - 1] {
        let e = Pool::builder().threads(1).stack_size(bytes).build().unwrap_err();
        assert!(matches!(e, Error::StackTooSmall { bytes: b, min } if b == bytes && min == finegrain::MIN_STACK_SIZE), "{e:?}");
        assert!(e.to_string().contains(&finegrain::MIN_STACK_SIZE.to_string()), "{e}");
    }
    // The minimum itself runs every policy's workers.
    fn fib(n: u64) -> u64 {
        if n < 2 {
            n
        } else {
            let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
            a + b
        }
    }
    for spec in policy_names() {
        let pool = Pool::builder().threads(2).policy(spec).stack_size(finegrain::MIN_STACK_SIZE).build().unwrap();
        assert_eq!(pool.install(|| fib(10)), 55, "{spec}");
        assert_eq!(pool.install(|| finegrain::reduce(0..1000, || 0usize, |i| i, |a, b| a + b)), 499_500, "{spec}");
    }
}

#[test]
fn thread_names_with_a_nul_byte_are_errors_not_panics() {
    let e = Pool::builder().threads(2).thread_name("bad\0name").build().unwrap_err();
    assert!(matches!(&e, Error::BadThreadName(n) if n == "bad\0name"), "{e:?}");
    assert!(e.to_string().contains("NUL"), "{e}");
    assert_eq!(Pool::builder().threads(1).thread_name("good name").build().unwrap().threads(), 1);
}

#[test]
fn pools_have_the_requested_size_and_policy() {
    for (threads, spec) in [(1, "ws"), (3, "ws:victim=nearest,steal=one"), (5, "adm-hier:radix=2"), (2, "adm-central")] {
        let pool = Pool::new(threads, spec).unwrap();
        assert_eq!(pool.threads(), threads);
        assert_eq!(pool.policy(), &Policy::parse(spec).unwrap());
        assert_eq!(pool.install(finegrain::current_num_threads), threads);
        let idx = pool.install(finegrain::current_worker_index).expect("install runs on a worker");
        assert!(idx < threads);
    }
    assert_eq!(finegrain::current_worker_index(), None, "the test thread is no worker");
}

/// The names of every registered policy, for checking "valid values" lists.
fn policy_names() -> Vec<&'static str> {
    policies().map(|p| p.name).collect()
}

#[test]
fn unknown_policy_names_it_and_lists_the_valid_ones() {
    let e = Pool::new(2, "wss").unwrap_err();
    assert!(matches!(&e, Error::UnknownPolicy { given, .. } if given == "wss"), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("\"wss\""), "{msg}");
    for name in policy_names() {
        assert!(msg.contains(name), "{msg} does not list {name}");
    }
    assert!(policy_names().contains(&"ws"));
}

#[test]
fn unknown_option_names_it_and_lists_the_valid_ones() {
    for info in policies() {
        let spec = format!("{}:colour=red", info.name);
        let e = Policy::parse(&spec).unwrap_err();
        assert!(matches!(&e, Error::UnknownOption { option, .. } if option == "colour"), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("colour") && msg.contains(info.name), "{msg}");
        for o in info.options {
            assert!(msg.contains(o.name), "{msg} does not list option {}", o.name);
        }
    }
    // An option of another policy is unknown here too.
    let msg = Policy::parse("adm-central:radix=4").unwrap_err().to_string();
    assert!(msg.contains("radix") && msg.contains("burst"), "{msg}");
}

#[test]
fn bad_values_name_option_and_value_and_list_the_valid_ones() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("ws:victim=psychic", "psychic", &["victim", "random", "round-robin", "nearest", "hier"]),
        ("ws:order=sideways", "sideways", &["order", "lifo", "fifo"]),
        ("ws:steal=0", "0", &["steal", "one", "half"]),
        ("ws:steal=many", "many", &["steal", "one", "half"]),
        ("ws:radix=1", "1", &["radix", "2..=1024"]),
        ("ws:spin=-3", "-3", &["spin", "0..=100000"]),
        ("adm-hier:radix=5000", "5000", &["radix", "2..=1024"]),
        ("adm-central:burst=0", "0", &["burst", "1..=1024"]),
    ];
    for (spec, value, must) in cases {
        let e = Policy::parse(spec).unwrap_err();
        assert!(matches!(&e, Error::BadValue { value: v, .. } if v == value), "{spec}: {e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("{value:?}")), "{spec}: {msg}");
        for m in *must {
            assert!(msg.contains(m), "{spec}: {msg} does not mention {m}");
        }
    }
}

#[test]
fn malformed_specs_name_the_bad_part() {
    for (spec, part) in [("ws:victim", "victim"), ("ws:=3", "=3"), ("ws:steal=", "steal="), ("ws:a=1,b", "b")] {
        let e = Policy::parse(spec).unwrap_err();
        assert!(matches!(&e, Error::Malformed { part: p, .. } if p == part), "{spec}: {e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("{part:?}")) && msg.contains("name=value"), "{spec}: {msg}");
    }
}

#[test]
fn an_option_given_twice_is_an_error_naming_it() {
    for (spec, option) in
        [("ws:victim=random,victim=nearest", "victim"), ("ws:steal=one,order=lifo,steal=one", "steal"), ("adm-hier:radix=2,radix=4", "radix")]
    {
        let e = Policy::parse(spec).unwrap_err();
        assert!(matches!(&e, Error::DuplicateOption { option: o, .. } if o == option), "{spec}: {e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("{option:?}")) && msg.contains("more than once"), "{spec}: {msg}");
        assert!(Pool::builder().threads(1).policy(spec).build().is_err(), "{spec}");
    }
}

/// What `policies()` documents is what the parser accepts, and a policy's
/// canonical spelling parses back to the same policy.
#[test]
fn documented_defaults_parse_and_canonical_specs_round_trip() {
    for info in policies() {
        let plain = Policy::parse(info.name).unwrap();
        for o in info.options {
            let spec = format!("{}:{}={}", info.name, o.name, o.default);
            let p = Policy::parse(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(p, plain, "{spec}: the documented default is not the default");
        }
        assert_eq!(Policy::parse(&plain.canonical()).unwrap(), plain, "{}", plain.canonical());
    }
    for spec in ["ws:victim=hier,radix=2,steal=4", "ws:order=fifo,spin=0", " ws : victim = nearest , steal = one "] {
        let p = Policy::parse(spec).unwrap();
        assert_eq!(Policy::parse(&p.canonical()).unwrap(), p, "{spec}");
    }
}

// ---- the global pool and the environment, in child processes ----

/// Run scenario `name` in a child process with `env` (and no other
/// `FINEGRAIN_*` variables); panics with the child's output if it fails.
fn run_child(name: &str, env: &[(&str, &str)]) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child_process_entry", "--exact", "--nocapture", "--test-threads=1"]);
    for (k, _) in std::env::vars() {
        if k.starts_with("FINEGRAIN_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("FINEGRAIN_TEST_CHILD", name);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "scenario {name} with {env:?} failed:\n{text}");
}

/// The child's side: dispatch on `FINEGRAIN_TEST_CHILD`. In a normal test run
/// the variable is unset and this does nothing.
#[test]
fn child_process_entry() {
    let Ok(scenario) = std::env::var("FINEGRAIN_TEST_CHILD") else {
        return;
    };
    match scenario.as_str() {
        "env_configures_global" => {
            let g = finegrain::global();
            assert_eq!(g.threads(), 3);
            assert_eq!(g.policy(), &Policy::parse("ws:victim=nearest,steal=one").unwrap());
            // Work outside any pool goes to the global pool.
            assert_eq!(finegrain::current_num_threads(), 3);
            let (a, b) = finegrain::join(finegrain::current_worker_index, || 7);
            assert!(a.is_some_and(|i| i < 3) && b == 7);
            // Builders without explicit settings read the same variables ...
            let p = Pool::builder().build().unwrap();
            assert_eq!((p.threads(), victim(p.policy())), (3, "nearest"));
            // ... and explicit settings win over them.
            let p = Pool::builder().threads(2).policy("ws").build().unwrap();
            assert_eq!((p.threads(), victim(p.policy())), (2, "random"));
        }
        "env_unset_uses_defaults" => {
            let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
            assert_eq!(finegrain::global().threads(), cpus);
            assert_eq!(finegrain::global().policy(), &Policy::parse("ws").unwrap());
        }
        "env_bad_threads" => {
            let e = Pool::builder().build().unwrap_err();
            assert!(matches!(&e, Error::BadThreads(s) if s == "lots"), "{e:?}");
            assert!(e.to_string().contains("lots"), "{e}");
            assert!(matches!(Pool::builder().build_global().unwrap_err(), Error::BadThreads(_)));
            // `global()` cannot return an error: it panics with the reason.
            let p = std::panic::catch_unwind(finegrain::global).unwrap_err();
            let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains("global pool") && msg.contains("lots"), "{msg}");
            // An explicit count does not consult the variable.
            assert_eq!(Pool::builder().threads(2).build().unwrap().threads(), 2);
        }
        "env_too_many_threads" => {
            let e = Pool::builder().build().unwrap_err();
            assert!(matches!(e, Error::TooManyThreads { requested: 100_000, .. }), "{e:?}");
            assert!(matches!(Pool::builder().build_global().unwrap_err(), Error::TooManyThreads { .. }));
            let p = std::panic::catch_unwind(finegrain::global).unwrap_err();
            let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains("100000") && msg.contains(&finegrain::MAX_THREADS.to_string()), "{msg}");
            // Nothing was started: the process has no worker thread.
            for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
                let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
                assert!(!comm.starts_with("finegrain"), "a worker thread was started: {comm}");
            }
        }
        "env_zero_threads" => {
            assert!(matches!(Pool::builder().build().unwrap_err(), Error::ZeroThreads));
        }
        "env_bad_policy" => {
            let e = Pool::builder().build().unwrap_err();
            assert!(matches!(&e, Error::UnknownOption { option, .. } if option == "colour"), "{e:?}");
            let p = std::panic::catch_unwind(finegrain::global).unwrap_err();
            let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains("colour"), "{msg}");
        }
        "build_global_twice" => {
            Pool::builder().threads(2).policy("ws:order=fifo").build_global().unwrap();
            let e = Pool::builder().threads(4).build_global().unwrap_err();
            assert!(matches!(e, Error::GlobalAlreadyInitialized), "{e:?}");
            assert!(e.to_string().contains("already"), "{e}");
            // The first one stays.
            assert_eq!(finegrain::global().threads(), 2);
            assert_eq!(finegrain::global().policy().order, finegrain::policy::Order::Fifo);
        }
        "build_global_after_first_use" => {
            // Using the global pool creates it; configuring it afterwards fails.
            assert_eq!(finegrain::join(|| 1, || 2), (1, 2));
            assert!(matches!(Pool::builder().threads(2).build_global().unwrap_err(), Error::GlobalAlreadyInitialized));
        }
        other => panic!("unknown child scenario {other}"),
    }
}

#[test]
fn env_threads_and_policy_configure_the_global_pool() {
    run_child("env_configures_global", &[("FINEGRAIN_THREADS", "3"), ("FINEGRAIN_POLICY", "ws:victim=nearest,steal=one")]);
    // Whitespace around the values is ignored.
    run_child("env_configures_global", &[("FINEGRAIN_THREADS", " 3 "), ("FINEGRAIN_POLICY", " ws:victim=nearest,steal=one ")]);
}

#[test]
fn env_unset_or_empty_means_defaults() {
    run_child("env_unset_uses_defaults", &[]);
    run_child("env_unset_uses_defaults", &[("FINEGRAIN_THREADS", ""), ("FINEGRAIN_POLICY", " ")]);
}

#[test]
fn env_bad_values_are_errors_naming_them() {
    run_child("env_bad_threads", &[("FINEGRAIN_THREADS", "lots")]);
    run_child("env_zero_threads", &[("FINEGRAIN_THREADS", "0")]);
    run_child("env_too_many_threads", &[("FINEGRAIN_THREADS", "100000")]);
    run_child("env_bad_policy", &[("FINEGRAIN_POLICY", "ws:colour=red")]);
}

#[test]
fn build_global_twice_is_an_error() {
    run_child("build_global_twice", &[]);
    run_child("build_global_after_first_use", &[("FINEGRAIN_THREADS", "2")]);
}

/// The victim order of a `ws` policy.
fn victim(p: &finegrain::Policy) -> &'static str {
    match p.kind {
        finegrain::policy::PolicyKind::Ws(w) => w.victim.name(),
        _ => panic!("not a ws policy: {p}"),
    }
}
