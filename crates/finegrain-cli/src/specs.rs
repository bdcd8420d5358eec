//! Turning the list-valued options (policies, thread counts, workloads, sizes)
//! into checked values. Every error names what was wrong and what is valid.

use finegrain::Policy;
use finegrain_workloads::{Size, Workload};

/// A policy as the user wrote it (the label in tables and plots) and parsed.
#[derive(Clone, Debug)]
pub struct PolicySpec {
    pub label: String,
    pub policy: Policy,
}

impl PolicySpec {
    pub fn canonical(&self) -> String {
        self.policy.canonical()
    }
}

/// Split a policy list. Specs contain commas themselves (`ws:victim=nearest,steal=one`),
/// so an item of the form `opt=value` without a `:` continues the spec before it;
/// `;` always separates.
pub fn split_policy_list(text: &str) -> Result<Vec<String>, String> {
    let mut specs: Vec<String> = Vec::new();
    for group in text.split(';') {
        let mut in_group = 0;
        for item in group.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item.contains('=') && !item.contains(':') {
                match specs.last_mut() {
                    Some(last) if in_group > 0 => {
                        last.push(',');
                        last.push_str(item);
                    }
                    _ => return Err(format!("policy option {item:?} does not follow a policy name (write e.g. ws:{item})")),
                }
            } else {
                specs.push(item.to_string());
                in_group += 1;
            }
        }
    }
    if specs.is_empty() {
        return Err("no policy given".into());
    }
    Ok(specs)
}

/// Parse the policy list, or every registered policy with its defaults.
pub fn policies(arg: Option<&str>) -> Result<Vec<PolicySpec>, String> {
    let texts = match arg {
        Some(t) => split_policy_list(t)?,
        None => finegrain::policies().map(|p| p.name.to_string()).collect(),
    };
    let mut out: Vec<PolicySpec> = Vec::new();
    for label in texts {
        let policy = Policy::parse(&label).map_err(|e| format!("bad policy {label:?}: {e}"))?;
        if let Some(prev) = out.iter().find(|p| p.policy == policy) {
            return Err(format!("policies {:?} and {label:?} are the same configuration ({})", prev.label, policy.canonical()));
        }
        out.push(PolicySpec { label, policy });
    }
    Ok(out)
}

/// 1, the powers of two below the CPU count, and the CPU count (at most
/// `finegrain::MAX_THREADS`).
pub fn default_threads() -> Vec<usize> {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get().min(finegrain::MAX_THREADS));
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |x| Some(x * 2)).take_while(|&x| x < n).collect();
    v.push(n);
    v
}

/// Parse a comma-separated list of positive thread counts, at most
/// `finegrain::MAX_THREADS` each, or the default.
pub fn threads(arg: Option<&str>) -> Result<Vec<usize>, String> {
    let Some(text) = arg else {
        return Ok(default_threads());
    };
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.parse::<usize>() {
            Ok(0) => return Err("thread counts must be at least 1 (got 0)".into()),
            Ok(n) if n > finegrain::MAX_THREADS => {
                return Err(format!("thread count {n} is above the maximum of {} threads a pool may have", finegrain::MAX_THREADS))
            }
            Ok(n) if !out.contains(&n) => out.push(n),
            Ok(_) => {}
            Err(_) => return Err(format!("bad thread count {item:?}: expected a positive integer")),
        }
    }
    if out.is_empty() {
        return Err("no thread count given".into());
    }
    Ok(out)
}

pub fn size(text: &str) -> Result<Size, String> {
    Size::parse(text.trim()).ok_or_else(|| {
        let valid: Vec<&str> = Size::EVERY.iter().map(|s| s.name()).collect();
        format!("unknown size {text:?}; valid sizes: {}", valid.join(", "))
    })
}

/// A comma-separated list of sizes.
pub fn sizes(text: &str) -> Result<Vec<Size>, String> {
    let v = text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(size).collect::<Result<Vec<_>, _>>()?;
    if v.is_empty() {
        return Err("no size given".into());
    }
    Ok(v)
}

/// The named workloads in the order given, or the default suite.
pub fn workloads(arg: Option<&str>) -> Result<Vec<Box<dyn Workload>>, String> {
    let mut all = finegrain_workloads::all();
    let Some(text) = arg else {
        return Ok(default_suite(all));
    };
    let names: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if names.is_empty() {
        return Err("no workload given".into());
    }
    let mut out: Vec<Box<dyn Workload>> = Vec::new();
    for name in names {
        match all.iter().position(|w| w.name() == name) {
            Some(i) => out.push(all.remove(i)),
            None if out.iter().any(|w| w.name() == name) => {}
            None => {
                let valid: Vec<&str> = finegrain_workloads::all().iter().map(|w| w.name()).collect();
                let valid = if valid.is_empty() { "(none registered)".to_string() } else { valid.join(", ") };
                return Err(format!("unknown workload {name:?}; valid workloads: {valid}"));
            }
        }
    }
    Ok(out)
}

/// The default suite: the first workload of each API kind, so that every part of
/// the task API (join, scope, loops, phases, graphs, ...) is exercised once and
/// the suite stays short however many workloads get registered.
pub fn default_suite(all: Vec<Box<dyn Workload>>) -> Vec<Box<dyn Workload>> {
    let mut seen: Vec<&'static str> = Vec::new();
    all.into_iter()
        .filter(|w| {
            let fresh = !seen.contains(&w.api());
            if fresh {
                seen.push(w.api());
            }
            fresh
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_lists_keep_options_with_their_spec() {
        let v = split_policy_list("ws,ws:victim=nearest,steal=one;ws:order=fifo").unwrap();
        assert_eq!(v, ["ws", "ws:victim=nearest,steal=one", "ws:order=fifo"]);
        assert!(split_policy_list("steal=one,ws").is_err());
        assert!(split_policy_list(" , ").is_err());
    }

    #[test]
    fn policies_are_parsed_and_deduplicated() {
        let p = policies(Some("ws,ws:victim=nearest")).unwrap();
        assert_eq!(p.len(), 2);
        assert!(policies(Some("ws,ws:victim=random")).unwrap_err().contains("same configuration"));
        assert!(policies(Some("nope")).unwrap_err().contains("unknown policy"));
    }

    #[test]
    fn thread_lists() {
        assert_eq!(threads(Some("1, 2,2")).unwrap(), [1, 2]);
        assert!(threads(Some("0")).unwrap_err().contains("at least 1"));
        let max = finegrain::MAX_THREADS;
        assert_eq!(threads(Some(&max.to_string())).unwrap(), [max]);
        let e = threads(Some(&format!("1,{}", max + 1))).unwrap_err();
        assert!(e.contains(&(max + 1).to_string()) && e.contains(&max.to_string()), "{e}");
        assert!(default_threads().iter().all(|&n| (1..=max).contains(&n)));
        assert!(threads(Some("x")).is_err());
        assert_eq!(default_threads()[0], 1);
    }

    #[test]
    fn sizes() {
        assert_eq!(size("test").unwrap(), Size::Test);
        assert!(size("huge").unwrap_err().contains("small"));
        assert_eq!(size("paper").unwrap(), Size::Paper);
        assert!(size("huge").unwrap_err().contains("paper"));
    }
}
