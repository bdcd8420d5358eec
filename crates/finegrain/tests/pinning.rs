//! A pool pins its workers by default exactly when its policy's decisions
//! use hardware distance (`Policy::uses_topology`), and `pin` overrides it.

#[cfg(target_os = "linux")]
fn cpus_allowed_here() -> usize {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity(0, ..) fills it for
    // the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
        libc::CPU_COUNT(&set) as usize
    }
}

#[cfg(target_os = "linux")]
#[test]
fn workers_are_pinned_by_default_when_the_policy_uses_distance() {
    let allowed = cpus_allowed_here();
    if allowed < 2 {
        eprintln!("one CPU allowed: pinning cannot be observed");
        return;
    }
    let on_worker = |b: finegrain::Builder| b.threads(2).build().unwrap().install(cpus_allowed_here);
    for (spec, pinned) in [("ws", false), ("ws:victim=nearest", true), ("adm-central:space-steal=recursive", true), ("carbon", false)] {
        let got = on_worker(finegrain::Pool::builder().policy(spec));
        assert_eq!(got, if pinned { 1 } else { allowed }, "{spec}");
    }
    assert_eq!(on_worker(finegrain::Pool::builder().policy("ws:victim=nearest").pin(false)), allowed);
    assert_eq!(on_worker(finegrain::Pool::builder().policy("ws").pin(true)), 1);
}
