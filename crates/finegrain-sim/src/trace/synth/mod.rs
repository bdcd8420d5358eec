//! Synthetic task graphs: deterministic in a seed, built with
//! [`finegrain::taskgraph::Builder`], so every graph validates.
//!
//! | generator | structure |
//! |---|---|
//! | [`taskbench`] (`taskbench:`) | Task Bench's dependence patterns (Slaughter et al., SC'20) as dataflow graph nodes |
//! | [`tree`] (`tree:`) | a fork-join tree of `Join` tasks (fib, mergesort), with an optional merge-sort footprint |
//! | [`loop_tasks`] (`loop:`) | parallel loops, repeated in phases (cg's iterations) over the same lines |
//! | [`uts`] (`uts:`) | the binomial unbalanced tree search of Olivier et al. (LCPC'06) |
//! | [`profile`] (`profile:`) | the ADM paper's workloads (Sanchez et al., ASPLOS'10, Table 4) by their structure and mean task length |
//!
//! By name, from a spec string: [`generate`]`("tree:depth=12,leaf=500", seed)`;
//! [`generators`] lists names and keys. Every graph's [`Meta`] says
//! `Clock::Synthetic` and `LineMap::Synthetic`, its `size` is the full
//! parameter list (defaults included), and its `note` the distribution used.
//!
//! Task lengths come from a [`Dist`]: constant, exponential, lognormal or
//! gamma with a stated mean and coefficient of variation, rounded to whole
//! cycles (at least 1).

mod loops;
mod profile;
mod taskbench;
mod tree;
mod uts;

#[cfg(test)]
mod tests;

pub use loops::{loop_tasks, LoopParams};
pub use profile::{profile, PROFILES};
pub use taskbench::{taskbench, Pattern};
pub use tree::{tree, TreeParams};
pub use uts::{uts, UtsParams};

use crate::SimError;
use finegrain::taskgraph::{Meta, TaskGraph};

/// The most tasks a generator makes.
pub const MAX_TASKS: u64 = 50_000_000;
/// The most graph edges a generator makes.
pub const MAX_EDGES: u64 = 200_000_000;

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, seedable, statistically
/// sound generator; every generator draws from one, so a seed fixes a graph.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in (0, 1), never 0 (53 random bits).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// SplitMix64's output function: a bijective 64-bit mix.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A distribution of task lengths in cycles.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Dist {
    /// Always `mean`.
    Const(f64),
    /// Exponential with this mean (CV 1).
    Exp(f64),
    /// Lognormal with this mean and coefficient of variation:
    /// `exp(mu + s Z)` with `s² = ln(1 + cv²)`, `mu = ln(mean) − s²/2`.
    Lognormal { mean: f64, cv: f64 },
    /// Gamma with this mean and coefficient of variation: shape `1/cv²`,
    /// scale `mean·cv²` (Marsaglia-Tsang).
    Gamma { mean: f64, cv: f64 },
}

impl Dist {
    /// `kind` is `const`, `exp`, `lognormal` or `gamma`.
    pub fn parse(kind: &str, mean: f64, cv: f64) -> Result<Dist, SimError> {
        if !(mean.is_finite() && mean >= 0.0) {
            return Err(SimError::Synth(format!("mean task length {mean} must not be negative")));
        }
        if mean == 0.0 {
            return Ok(Dist::Const(0.0));
        }
        if !(cv.is_finite() && (0.0..=10.0).contains(&cv)) {
            return Err(SimError::Synth(format!("cv {cv} must be between 0 and 10")));
        }
        Ok(match kind {
            "const" | "constant" => Dist::Const(mean),
            "exp" | "exponential" => Dist::Exp(mean),
            "lognormal" | "lognorm" => Dist::Lognormal { mean, cv },
            "gamma" => Dist::Gamma { mean, cv },
            other => return Err(SimError::Synth(format!("unknown distribution {other:?}; valid: const, exp, lognormal, gamma"))),
        })
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Const(m) | Dist::Exp(m) => m,
            Dist::Lognormal { mean, .. } | Dist::Gamma { mean, .. } => mean,
        }
    }

    /// The same family with its mean times `k` and its CV over `√k`: the
    /// distribution of a sum of `k` independent draws, approximately (exact
    /// for constants and for gamma).
    pub fn sum_of(&self, k: u64) -> Dist {
        let kf = k.max(1) as f64;
        match *self {
            Dist::Const(m) => Dist::Const(m * kf),
            Dist::Exp(m) => Dist::Gamma { mean: m * kf, cv: 1.0 / kf.sqrt() },
            Dist::Lognormal { mean, cv } => Dist::Lognormal { mean: mean * kf, cv: cv / kf.sqrt() },
            Dist::Gamma { mean, cv } => Dist::Gamma { mean: mean * kf, cv: cv / kf.sqrt() },
        }
    }

    fn raw(&self, r: &mut Rng) -> f64 {
        match *self {
            Dist::Const(m) => m,
            Dist::Exp(m) => -m * r.unit().ln(),
            Dist::Lognormal { mean, cv } => {
                if cv == 0.0 {
                    return mean;
                }
                let s2 = (1.0 + cv * cv).ln();
                (mean.ln() - s2 / 2.0 + s2.sqrt() * r.normal()).exp()
            }
            Dist::Gamma { mean, cv } => {
                if cv == 0.0 {
                    return mean;
                }
                let k = 1.0 / (cv * cv);
                gamma(k, r) * mean / k
            }
        }
    }

    /// One task length, in whole cycles, at least 1 (0 only for `Const(0)`).
    #[inline]
    pub fn sample(&self, r: &mut Rng) -> u64 {
        let x = self.raw(r).round();
        if x <= 0.0 && *self == Dist::Const(0.0) {
            0
        } else if x < 1.0 {
            1
        } else if x > 1e18 {
            1_000_000_000_000_000_000
        } else {
            x as u64
        }
    }

    /// How the note describes it.
    pub fn describe(&self) -> String {
        match *self {
            Dist::Const(m) => format!("constant {m} cycles"),
            Dist::Exp(m) => format!("exponential, mean {m} cycles"),
            Dist::Lognormal { mean, cv } => format!("lognormal, mean {mean} cycles, CV {cv}"),
            Dist::Gamma { mean, cv } => format!("gamma, mean {mean} cycles, CV {cv}"),
        }
    }
}

/// A gamma(shape k, scale 1) deviate: Marsaglia and Tsang (2000), with the
/// `U^(1/k)` boost for k < 1.
fn gamma(k: f64, r: &mut Rng) -> f64 {
    if k < 1.0 {
        return gamma(k + 1.0, r) * r.unit().powf(1.0 / k);
    }
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = r.normal();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = r.unit();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// The meta of a synthetic graph.
pub(crate) fn meta(workload: &str, size: String, seed: u64, note: String) -> Meta {
    Meta { note, ..Meta::synthetic(workload, size, seed) }
}

pub(crate) fn synth_err(s: impl Into<String>) -> SimError {
    SimError::Synth(s.into())
}

pub(crate) fn check_tasks(what: &str, tasks: u64) -> Result<(), SimError> {
    if tasks > MAX_TASKS {
        return Err(synth_err(format!("{what}: {tasks} tasks, more than the limit of {MAX_TASKS}")));
    }
    Ok(())
}

pub(crate) fn built(r: Result<TaskGraph, finegrain::taskgraph::GraphError>) -> Result<TaskGraph, SimError> {
    // A generator that builds a malformed graph is a bug; say so plainly.
    r.map_err(|e| SimError::Synth(format!("generator bug: {e}")))
}

// ---------------------------------------------------------------- registry

/// One generator: its spec name, a line of help, and its keys.
#[derive(Debug)]
pub struct GeneratorInfo {
    pub name: &'static str,
    /// One line: what it makes and its keys with their defaults.
    pub help: &'static str,
    /// The keys a spec may give.
    pub keys: &'static [&'static str],
    make: fn(&Params<'_>, u64, bool) -> Result<Option<TaskGraph>, SimError>,
}

static GENERATORS: [GeneratorInfo; 5] = [
    GeneratorInfo {
        name: "taskbench",
        help: "Task Bench dependence patterns as graph nodes: pattern=stencil_1d (trivial, no_comm, stencil_1d, \
               stencil_1d_periodic, dom, tree, fft, all_to_all, nearest, spread, random_nearest), width=16, steps=100, \
               cycles=1000, lines=0 (per task), radix=3 (nearest, spread, random_nearest)",
        keys: &["pattern", "width", "steps", "cycles", "lines", "radix"],
        make: taskbench::from_params,
    },
    GeneratorInfo {
        name: "tree",
        help: "a fork-join tree of Join tasks: depth=10, fanout=2, inline=0 (1: first child runs inline, as join does), \
               leaf=1000 and inner=100 (mean cycles), dist=const, cv=0.5, lines=0 (per leaf: merge-sort footprint)",
        keys: &["depth", "fanout", "inline", "leaf", "inner", "dist", "cv", "lines"],
        make: tree::from_params,
    },
    GeneratorInfo {
        name: "loop",
        help: "parallel loops run by the root: iterations=10000, grain=1, cycles=1000 (mean per iteration), dist=const, \
               cv=0.5, lines=0 (per iteration), loops=1 (per repeat), repeats=1, write=1",
        keys: &["iterations", "grain", "cycles", "dist", "cv", "lines", "loops", "repeats", "write"],
        make: loops::from_params,
    },
    GeneratorInfo {
        name: "uts",
        help: "binomial unbalanced tree search: b0=200 root children, then m=8 children with probability q=0.124; \
               cycles=1000, dist=const, cv=0.5, max=50000000 tasks",
        keys: &["b0", "m", "q", "cycles", "dist", "cv", "max"],
        make: uts::from_params,
    },
    GeneratorInfo {
        name: "profile",
        help: "an ADM Table 4 workload's structure and mean task length: name=canneal|mergesort|maxflow|ced|cg|gtfold|hashjoin, \
               tasks=100000 (about)",
        keys: &["name", "tasks"],
        make: profile::from_params,
    },
];

/// Every generator, in the order `--synth help` lists them.
pub fn generators() -> &'static [GeneratorInfo] {
    &GENERATORS
}

/// A parsed spec: `NAME` or `NAME:key=value,key=value`.
#[derive(Debug)]
pub struct Params<'a> {
    pub gen: &'static GeneratorInfo,
    kv: Vec<(&'a str, &'a str)>,
}

fn parse(spec: &str) -> Result<Params<'_>, SimError> {
    let spec = spec.trim();
    let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let name = name.trim();
    let names = || GENERATORS.iter().map(|g| g.name).collect::<Vec<_>>().join(", ");
    let gen = GENERATORS
        .iter()
        .find(|g| g.name == name || (g.name == "loop" && name == "loops"))
        .ok_or_else(|| synth_err(format!("unknown generator {name:?} in {spec:?}; generators: {}", names())))?;
    let mut kv: Vec<(&str, &str)> = Vec::new();
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| synth_err(format!("{name}: {part:?} is not key=value (keys: {})", gen.keys.join(", "))))?;
        let (k, v) = (k.trim(), v.trim());
        if !gen.keys.contains(&k) {
            return Err(synth_err(format!("{name}: unknown key {k:?}; keys: {}", gen.keys.join(", "))));
        }
        if kv.iter().any(|(k2, _)| *k2 == k) {
            return Err(synth_err(format!("{name}: key {k:?} given twice")));
        }
        kv.push((k, v));
    }
    Ok(Params { gen, kv })
}

impl Params<'_> {
    pub fn get(&self, key: &str) -> Option<&str> {
        debug_assert!(self.gen.keys.contains(&key), "{key} is not a key of {}", self.gen.name);
        self.kv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn bad(&self, key: &str, v: &str, what: &str) -> SimError {
        synth_err(format!("{}: {key}={v:?} is not {what}", self.gen.name))
    }

    /// An integer (`_` separators and a `k`/`M` suffix allowed: `tasks=1M`).
    pub fn u64(&self, key: &str, default: u64) -> Result<u64, SimError> {
        let Some(v) = self.get(key) else { return Ok(default) };
        let s = v.replace('_', "");
        let (num, mul) = match s.as_bytes().last() {
            Some(b'k' | b'K') => (&s[..s.len() - 1], 1_000),
            Some(b'M') => (&s[..s.len() - 1], 1_000_000),
            _ => (&s[..], 1),
        };
        num.parse::<u64>().ok().and_then(|n| n.checked_mul(mul)).ok_or_else(|| self.bad(key, v, "a non-negative integer"))
    }

    pub fn u32(&self, key: &str, default: u32) -> Result<u32, SimError> {
        let v = self.u64(key, default as u64)?;
        u32::try_from(v).map_err(|_| synth_err(format!("{}: {key}={v} is too large", self.gen.name)))
    }

    pub fn f64(&self, key: &str, default: f64) -> Result<f64, SimError> {
        let Some(v) = self.get(key) else { return Ok(default) };
        v.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| self.bad(key, v, "a number"))
    }

    pub fn bool(&self, key: &str, default: bool) -> Result<bool, SimError> {
        match self.get(key) {
            None => Ok(default),
            Some("1" | "true" | "yes") => Ok(true),
            Some("0" | "false" | "no") => Ok(false),
            Some(v) => Err(self.bad(key, v, "0 or 1")),
        }
    }

    pub fn str(&self, key: &str, default: &'static str) -> &str {
        self.get(key).unwrap_or(default)
    }

    /// The cycles distribution from `mean_key`, `dist` and `cv`.
    pub fn dist(&self, mean_key: &str, default_mean: f64) -> Result<Dist, SimError> {
        let mean = self.f64(mean_key, default_mean)?;
        Dist::parse(self.str("dist", "const"), mean, self.f64("cv", 0.5)?)
            .map_err(|e| synth_err(format!("{}: {}", self.gen.name, e.to_string().trim_start_matches("bad generator parameters: "))))
    }
}

/// Make the graph a spec names (`tree:depth=12,leaf=500`), deterministic in
/// `seed`. Unknown generators and keys, malformed values and out-of-range
/// parameters are [`SimError::Synth`] errors that name them.
pub fn generate(spec: &str, seed: u64) -> Result<TaskGraph, SimError> {
    let p = parse(spec)?;
    Ok((p.gen.make)(&p, seed, true)?.expect("a generator asked to build returns a graph"))
}

/// Check a spec (generator, keys, values, limits) without building anything.
pub fn check(spec: &str) -> Result<(), SimError> {
    let p = parse(spec)?;
    (p.gen.make)(&p, 0, false).map(|_| ())
}
