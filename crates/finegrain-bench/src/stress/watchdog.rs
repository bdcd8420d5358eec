//! What the watchdog prints when a scenario hangs: every thread of the
//! process with its state and wait channel (from `/proc/self/task`), and,
//! with `--gdb`, every thread's backtrace.

use std::collections::BTreeMap;
use std::fs;

/// One line per thread state: `count x state wchan comm`, then the threads.
pub fn dump_threads() {
    let mut rows = Vec::new();
    let Ok(dir) = fs::read_dir("/proc/self/task") else {
        eprintln!("  (no /proc/self/task: no thread dump)");
        return;
    };
    for e in dir.flatten() {
        let tid = e.file_name().to_string_lossy().to_string();
        let read = |f: &str| fs::read_to_string(e.path().join(f)).map(|s| s.trim().to_string()).unwrap_or_else(|_| "?".into());
        let comm = read("comm");
        let stat = read("stat");
        // The state is the field after the parenthesised command name.
        let state = stat.rsplit_once(") ").map(|(_, r)| r.split(' ').next().unwrap_or("?").to_string()).unwrap_or_else(|| "?".into());
        let wchan = read("wchan");
        let wchan = if wchan.is_empty() || wchan == "0" { "-".to_string() } else { wchan };
        rows.push((tid, comm, state, wchan));
    }
    let mut groups: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    for (tid, comm, state, wchan) in &rows {
        // Worker names end in their index; group them without it.
        let family = comm.trim_end_matches(|c: char| c.is_ascii_digit()).to_string();
        groups.entry((family, state.clone(), wchan.clone())).or_default().push(format!("{tid}:{comm}"));
    }
    eprintln!("  threads ({}), grouped by name, state, wchan:", rows.len());
    for ((family, state, wchan), tids) in &groups {
        let shown: Vec<&str> = tids.iter().take(12).map(|s| s.as_str()).collect();
        let more = if tids.len() > 12 { format!(" ... {} more", tids.len() - 12) } else { String::new() };
        eprintln!("    {:>4} x {state} {wchan:<24} {family:<16} {}{more}", tids.len(), shown.join(" "));
    }
}

/// `gdb -p PID -batch -ex "thread apply all bt"`, if gdb is on PATH.
pub fn gdb_backtraces() {
    let on_path = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).any(|d| d.join("gdb").is_file())).unwrap_or(false);
    if !on_path {
        eprintln!("  (--gdb: no gdb on PATH)");
        return;
    }
    // Let a child attach under Yama's ptrace_scope=1.
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0);
    }
    let pid = std::process::id().to_string();
    eprintln!("  gdb -p {pid} -batch -ex 'thread apply all bt':");
    match std::process::Command::new("gdb").args(["-p", &pid, "-batch", "-ex", "thread apply all bt"]).output() {
        Ok(o) => {
            eprintln!("{}", String::from_utf8_lossy(&o.stdout));
            let err = String::from_utf8_lossy(&o.stderr);
            if !err.trim().is_empty() {
                eprintln!("  gdb stderr: {}", err.trim());
            }
        }
        Err(e) => eprintln!("  gdb failed to start: {e}"),
    }
}
