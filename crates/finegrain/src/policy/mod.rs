//! The scheduling policies: every decision the runtime makes about where work
//! goes and where an idle worker looks for it, as plain data and pure
//! functions (no threads, no atomics). This module builds without the
//! `runtime` feature, so a simulator can link it alone.
//!
//! A [`Policy`] names the mechanism it runs on ([`PolicyKind`]: work-stealing
//! deques, private queues with messages, or the central task unit) with that
//! mechanism's parameters, the order a worker takes its own tasks in, and its
//! idle behaviour. The decisions the mechanisms ask for:
//!
//! | decision | where |
//! |---|---|
//! | victim order of a thief | [`victim`] |
//! | how many tasks a steal takes | [`StealAmount`], [`adm`], [`carbon`] |
//! | own tasks: LIFO or FIFO | [`Order`] |
//! | where an idle worker looks, in order | [`search`] |
//! | spin, yield or park | [`idle`] |
//! | when a loop splits its range | [`split`] |
//! | managers: pairing, reports, burst, hand-over to a sleeper | [`adm`] |
//! | the central unit's order, overflow, underflow, prefetch | [`unit`](mod@unit), [`carbon`], [`swhier`], [`pdf`] |
//! | how a phase ends and reduces | [`reduce`] |
//! | `static`: loop pieces, who gets a spawn | [`fixed`] |
//! | how a task space's tasks are grouped and ordered (locality managers) | [`locality`] |
//! | `ideal` (simulator only): what an idle worker takes, when a loop splits | [`ideal`] |
//!
//! Adding a policy is one new file in this folder that defines a
//! `Registration` and one line in `REGISTERED` (see `docs/policies.md`,
//! "Adding a policy"). The runtime dispatches on [`Mechanism`], an enum, so
//! the fast path makes no indirect calls.

pub mod adm;
pub mod carbon;
pub mod fixed;
pub mod ideal;
pub mod idle;
pub mod locality;
pub mod notify;
pub mod pdf;
pub mod reduce;
pub mod search;
pub mod spec;
pub mod split;
pub mod swhier;
pub mod unit;
pub mod victim;
pub mod ws;

use crate::error::Error;
pub use adm::Adm;
pub use idle::{Idle, IdleAction};
pub use spec::Spec;
pub use victim::{VictimKind, VictimOrder};
pub use ws::Ws;

/// The order in which a worker takes tasks from its own queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Newest first: depth-first, the work-first order of Cilk (the default).
    Lifo,
    /// Oldest first: breadth-first, as gtfold's dataflow form needs (Sanchez,
    /// Yoo, Kozyrakis, ASPLOS 2010, section 6.4).
    Fifo,
}

/// How many tasks a thief takes from a victim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StealAmount {
    One,
    /// Half the victim's queue, rounded up (Sanchez, Yoo, Kozyrakis, ASPLOS
    /// 2010, section 4.1; Kumar, Hughes, Nguyen, ISCA 2007, section 4.1).
    Half,
    UpTo(usize),
}

impl StealAmount {
    /// Tasks to take from a victim that holds `victim_len` (at least one attempt).
    #[inline]
    pub fn count(self, victim_len: usize) -> usize {
        match self {
            StealAmount::One => 1,
            StealAmount::Half => victim_len.div_ceil(2).max(1),
            StealAmount::UpTo(k) => victim_len.min(k).max(1),
        }
    }
}

/// The three mechanisms a policy can run on, each one folder of the runtime.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// Per-worker Chase-Lev deques; thieves steal directly (`ws/`).
    Ws,
    /// Private per-worker queues; work moves only by messages (`adm/`).
    Adm,
    /// One central task unit plus per-worker buffers (`unit/`).
    Unit,
    /// Per-worker queues nobody steals from, plus an inbox for what is
    /// dealt to a worker (`fixed/`, the `static` baseline).
    Fixed,
}

/// Which of the policies on the central task unit, with its parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnitPolicy {
    /// Kumar, Hughes, Nguyen, "Carbon", ISCA 2007, section 4: a global task
    /// unit with a bounded deque per worker, a local prefetch buffer per
    /// worker, overflow to software queues.
    Carbon(carbon::Carbon),
    /// The same paper, section 2.3: small private queues plus one global queue.
    SwHier(swhier::SwHier),
    /// Liaskovitis et al., "Parallel Depth First vs. Work Stealing Schedulers
    /// on CMP Architectures", SPAA 2006: the ready task earliest in serial
    /// order first.
    Pdf,
}

impl UnitPolicy {
    /// The order of the unit's global queue (`carbon` keeps per-worker
    /// deques, newest first).
    pub fn global_order(self) -> unit::GlobalOrder {
        match self {
            UnitPolicy::Carbon(_) => unit::GlobalOrder::Lifo,
            UnitPolicy::SwHier(h) => h.order,
            UnitPolicy::Pdf => unit::GlobalOrder::Serial,
        }
    }
}

/// Which mechanism a policy runs on, with its parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// Work stealing (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1).
    Ws(Ws),
    /// Managers and workers coordinating by messages (the same paper, section 4.1).
    Adm(Adm),
    /// The central task unit (`carbon`, `sw-hier`, `pdf`).
    Unit(UnitPolicy),
    /// Static loops, no stealing ([`fixed`]; no parameters).
    Fixed,
}

impl PolicyKind {
    #[inline]
    pub fn mechanism(&self) -> Mechanism {
        match self {
            PolicyKind::Ws(_) => Mechanism::Ws,
            PolicyKind::Adm(_) => Mechanism::Adm,
            PolicyKind::Unit(_) => Mechanism::Unit,
            PolicyKind::Fixed => Mechanism::Fixed,
        }
    }
}

/// A parsed policy spec: its mechanism and its decision parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub name: &'static str,
    pub kind: PolicyKind,
    pub order: Order,
    pub idle: Idle,
    /// How idle workers steal inside a task space (`crate::TaskSpace`)
    /// unless the section chooses: the option `space-steal`, common to every
    /// policy (Yoo, thesis, chapter 6; [`locality::steal`]).
    pub space_steal: locality::steal::Stealing,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::parse("ws").expect("the default policy parses")
    }
}

impl Policy {
    /// Parse a spec such as `ws` or `ws:victim=nearest,steal=half,order=lifo`.
    ///
    /// ```
    /// let p = finegrain::Policy::parse("ws:victim=nearest,steal=half").unwrap();
    /// assert_eq!(p.name, "ws");
    /// assert!(finegrain::Policy::parse("ws:victim=psychic").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Policy, Error> {
        Policy::parse_in(REGISTERED, text)
    }

    /// [`Policy::parse`] against the policies of `registered`.
    fn parse_in(registered: &[&Registration], text: &str) -> Result<Policy, Error> {
        let spec = Spec::parse(text)?;
        let reg = registered
            .iter()
            .find(|r| r.info.name == spec.name)
            .ok_or_else(|| Error::UnknownPolicy { given: spec.name.to_string(), valid: registered.iter().map(|r| r.info.name).collect() })?;
        let opts: Vec<&'static str> = reg.info.options.iter().chain(COMMON_OPTIONS).map(|o| o.name).collect();
        let mut spec = spec.for_policy(reg.info.name);
        let mut policy = (reg.build)(&mut spec)?;
        let names: Vec<&'static str> = locality::steal::Stealing::ALL.iter().map(|s| s.name()).collect();
        let steal = spec.choice("space-steal", &names, "baseline")?;
        policy.space_steal = locality::steal::Stealing::parse(steal).expect("a listed scheme");
        policy.idle.awake_us = spec.int("awake", 0, idle::MAX_AWAKE_US as usize, idle::DEFAULT_AWAKE_US as usize)? as u32;
        policy.idle.nap_us = spec.int("nap", 0, idle::MAX_NAP_US as usize, idle::DEFAULT_NAP_US as usize)? as u32;
        spec.finish(&opts)?;
        Ok(policy)
    }

    /// The spec with every option spelled out, as recorded in reports (the
    /// common `space-steal`, `awake` and `nap` only where not the default): the policy's
    /// name and each option its registration declares, in the order it
    /// declares them, with the value this policy has. So a spec and its
    /// canonical form parse to the same policy, and two policies that differ
    /// in any option have different canonical forms (`policy::tests`).
    pub fn canonical(&self) -> String {
        self.canonical_in(REGISTERED)
    }

    /// [`Policy::canonical`] against the policies of `registered`.
    fn canonical_in(&self, registered: &[&Registration]) -> String {
        let mut s = self.name.to_string();
        if let Some(reg) = registered.iter().find(|r| r.info.name == self.name) {
            let opts: Vec<String> = reg.info.options.iter().filter_map(|o| (reg.value)(self, o.name).map(|v| format!("{}={v}", o.name))).collect();
            if !opts.is_empty() {
                s.push(':');
                s.push_str(&opts.join(","));
            }
        }
        if self.space_steal != locality::steal::Stealing::Baseline {
            s.push(if s.contains(':') { ',' } else { ':' });
            s.push_str(&format!("space-steal={}", self.space_steal.name()));
        }
        if self.idle.awake_us != idle::DEFAULT_AWAKE_US {
            s.push(if s.contains(':') { ',' } else { ':' });
            s.push_str(&format!("awake={}", self.idle.awake_us));
        }
        if self.idle.nap_us != idle::DEFAULT_NAP_US {
            s.push(if s.contains(':') { ',' } else { ':' });
            s.push_str(&format!("nap={}", self.idle.nap_us));
        }
        s
    }

    /// The value of an option every policy with a worker-owned order or an
    /// idle budget reads the same way (`order`, `spin`); `None` for others.
    pub(crate) fn common_value(&self, option: &str) -> Option<String> {
        match option {
            "spin" => Some(self.idle.spin_rounds.to_string()),
            "order" => Some(match self.order {
                Order::Lifo => "lifo".to_string(),
                Order::Fifo => "fifo".to_string(),
            }),
            _ => None,
        }
    }

    /// The mechanism this policy runs on.
    #[inline]
    pub fn mechanism(&self) -> Mechanism {
        self.kind.mechanism()
    }

    /// Whether a decision of this policy depends on which CPU a worker runs
    /// on (hardware distance or shared caches: `ws:victim=nearest`, a
    /// `space-steal` scheme other than the baseline): a pool pins its
    /// workers by default then.
    pub fn uses_topology(&self) -> bool {
        let nearest = matches!(self.kind, PolicyKind::Ws(w) if w.victim == VictimKind::Nearest);
        nearest || self.space_steal != locality::steal::Stealing::Baseline
    }
}

impl std::str::FromStr for Policy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Policy::parse(s)
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// Description of one registered policy, for `finegrain::policies()` and `finegrain list`.
#[derive(Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Where the algorithm comes from (authors, title, venue, section).
    pub source: &'static str,
    pub options: &'static [OptionInfo],
}

#[derive(Copy, Clone, Debug)]
pub struct OptionInfo {
    pub name: &'static str,
    pub values: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// `spin`, declared once for every policy that takes it.
pub(crate) const SPIN: OptionInfo =
    OptionInfo { name: "spin", values: "0..=100000", default: "64", help: "failed search rounds before an idle worker yields, then parks" };

/// `order` of a worker's own tasks, declared once for every policy that takes it.
pub(crate) const ORDER: OptionInfo =
    OptionInfo { name: "order", values: "lifo | fifo", default: "lifo", help: "order in which a worker runs its own tasks" };

/// Options every policy takes, beside its own ([`PolicyInfo::options`]).
pub static COMMON_OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "space-steal",
        values: "baseline | nearest | pattern | recursive",
        default: "baseline",
        help: "how idle workers steal inside a task space that does not choose (Yoo's thesis, chapter 6)",
    },
    OptionInfo {
        name: "awake",
        values: "0..=1000000",
        default: "5000",
        help: "microseconds an idle worker keeps yielding after its spin and yield rounds before it parks; 0: the rounds alone",
    },
    OptionInfo {
        name: "nap",
        values: "0..=100000",
        default: "0",
        help: "within the awake budget, park for at most this many microseconds at a time instead of yielding; 0: yield",
    },
];

/// One policy's entry in the registry.
pub(crate) struct Registration {
    pub(crate) info: PolicyInfo,
    pub(crate) build: fn(&mut Spec<'_>) -> Result<Policy, Error>,
    /// The value `build` read for each of `info.options`, as a spec writes it
    /// (`Policy::canonical`); `None` for an option it does not know.
    pub(crate) value: fn(&Policy, &str) -> Option<String>,
}

/// Every policy the runtime knows. Adding one: a new file and a line here.
static REGISTERED: &[&Registration] = &[
    &ws::REGISTRATION,
    &ws::PAPER,
    &adm::ADM_CENTRAL,
    &adm::ADM_HIER,
    &adm::ADM_PAPER_CENTRAL,
    &adm::ADM_PAPER_HIER,
    &carbon::REGISTRATION,
    &carbon::PAPER,
    &swhier::REGISTRATION,
    &pdf::REGISTRATION,
    &fixed::REGISTRATION,
];

/// Every registered policy with its options and defaults.
///
/// ```
/// let names: Vec<_> = finegrain::policies().map(|p| p.name).collect();
/// assert!(names.contains(&"ws"));
/// ```
pub fn policies() -> impl Iterator<Item = &'static PolicyInfo> {
    REGISTERED.iter().map(|r| &r.info)
}

/// The example of `docs/policies.md`, "Adding a policy", compiled and tested.
#[cfg(test)]
mod ring_example;

#[cfg(test)]
mod tests {
    use super::*;

    /// The "Adding a policy" example of `docs/policies.md` is this crate's
    /// `policy/ring_example.rs`, word for word, and it builds a policy
    /// whose spec parses and round-trips through its canonical form.
    #[test]
    fn the_adding_a_policy_example_is_compiled_and_works() {
        let code = include_str!("ring_example.rs");
        let doc = include_str!("../../../../docs/policies.md");
        assert!(doc.contains(code), "docs/policies.md, \"Adding a policy\", no longer shows policy/ring_example.rs as it is");
        let registered: &[&Registration] = &[&ring_example::REGISTRATION];
        let p = Policy::parse_in(registered, "ring:spin=3").unwrap();
        assert!(matches!(p.kind, PolicyKind::Ws(Ws { victim: VictimKind::RoundRobin, steal: StealAmount::One, .. })));
        assert_eq!(p.idle.spin_rounds, 3);
        assert_eq!(p.canonical_in(registered), "ring:spin=3");
        assert_eq!(Policy::parse_in(registered, &p.canonical_in(registered)).unwrap(), p);
        assert_eq!(Policy::parse_in(registered, "ring").unwrap().canonical_in(registered), "ring:spin=64");
        assert!(Policy::parse_in(registered, "ring:victim=nearest").is_err());
    }

    #[test]
    fn defaults_and_options() {
        let ws = |p: &Policy| match p.kind {
            PolicyKind::Ws(w) => (p.order, w.victim, w.steal),
            _ => panic!("not ws"),
        };
        let p = Policy::parse("ws").unwrap();
        assert_eq!(ws(&p), (Order::Lifo, VictimKind::Random, StealAmount::Half));
        let p = Policy::parse(" ws:victim=nearest, steal=4 ,order=fifo").unwrap();
        assert_eq!(ws(&p), (Order::Fifo, VictimKind::Nearest, StealAmount::UpTo(4)));
        assert_eq!(Policy::parse(&p.canonical()).unwrap(), p);
        for spec in [
            "carbon",
            "carbon:deque=4,prefetch=0",
            "sw-hier:order=priority,private=2",
            "pdf",
            "adm-hier:radix=4",
            "adm-central:manager=dedicated,burst=3",
        ] {
            let p = Policy::parse(spec).unwrap();
            assert_eq!(Policy::parse(&p.canonical()).unwrap(), p, "{spec} -> {}", p.canonical());
        }
        assert!(Policy::parse("sw-hier:order=serial").is_err());
        let p = Policy::parse("adm-hier:space-steal=recursive").unwrap();
        assert_eq!(p.space_steal, locality::steal::Stealing::Recursive);
        assert_eq!(Policy::parse(&p.canonical()).unwrap(), p, "{}", p.canonical());
        assert!(p.uses_topology() && Policy::parse("ws:victim=nearest").unwrap().uses_topology());
        assert!(!Policy::parse("ws").unwrap().uses_topology() && !Policy::parse("adm-central").unwrap().uses_topology());
        let e = Policy::parse("ws:space-steal=greedy").unwrap_err().to_string();
        assert!(e.contains("greedy") && e.contains("recursive"), "{e}");
        assert!(Policy::parse("carbon:deque=0").is_err());
        let p = Policy::parse("ws:awake=0").unwrap();
        assert_eq!((p.idle.awake_us, p.canonical().ends_with(",awake=0")), (0, true), "{}", p.canonical());
        assert_eq!(Policy::parse("ws").unwrap().idle.awake_us, idle::DEFAULT_AWAKE_US);
        let p = Policy::parse("adm-central").unwrap();
        assert_eq!((p.idle.awake_us, p.canonical().contains("awake")), (idle::DEFAULT_AWAKE_US, false), "{}", p.canonical());
        let p = Policy::parse("adm-hier:awake=0").unwrap();
        assert_eq!(Policy::parse(&p.canonical()).unwrap().idle.awake_us, 0, "{}", p.canonical());
        assert!(Policy::parse("ws:awake=1000001").is_err());
        let awake = COMMON_OPTIONS.iter().find(|o| o.name == "awake").unwrap();
        assert_eq!(awake.default, idle::DEFAULT_AWAKE_US.to_string());
        assert_eq!(awake.values, format!("0..={}", idle::MAX_AWAKE_US));
    }

    /// A value of option `o` other than its default, from its declared values
    /// (alternatives "a | b", ranges "lo..=hi" and "1..", placeholders "<k>").
    fn non_default(o: &OptionInfo) -> String {
        let d = o.default;
        for alt in o.values.split('|').map(str::trim) {
            if let Some((lo, hi)) = alt.split_once("..=") {
                let (lo, hi): (u64, u64) = (lo.parse().unwrap(), hi.parse().unwrap());
                return (if d == lo.to_string() { (lo + 1).min(hi) } else { lo }).to_string();
            }
            if let Some(lo) = alt.strip_suffix("..") {
                let lo: u64 = lo.parse().unwrap();
                return (if d == (lo + 3).to_string() { lo + 4 } else { lo + 3 }).to_string();
            }
            if alt != d && !alt.starts_with('<') {
                return alt.to_string();
            }
        }
        panic!("option {} declares no value but its default: {:?}", o.name, o.values)
    }

    /// Every option every registered policy declares, set to a value other
    /// than its default, changes the policy and survives the canonical
    /// string: so two specs that differ in any option are two configurations
    /// (`finegrain bench --policies 'adm-hier;adm-hier:handoff=manager'`) and
    /// a label never hides an option.
    #[test]
    fn every_declared_option_is_carried_by_the_canonical_spec() {
        let mut checked = 0;
        for info in policies() {
            let default = Policy::parse(info.name).unwrap();
            for o in info.options.iter().chain(COMMON_OPTIONS) {
                let spec = format!("{}:{}={}", info.name, o.name, non_default(o));
                let p = Policy::parse(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
                assert_ne!(p, default, "{spec} changes nothing");
                let c = p.canonical();
                assert_ne!(c, default.canonical(), "{spec}: the canonical spec drops {}", o.name);
                assert_eq!(Policy::parse(&c).unwrap(), p, "{spec} -> {c}");
                checked += 1;
            }
        }
        assert!(checked >= 30, "only {checked} options checked");
    }

    #[test]
    fn errors_name_the_bad_part() {
        let e = Policy::parse("wss").unwrap_err().to_string();
        assert!(e.contains("\"wss\"") && e.contains("ws"), "{e}");
        let e = Policy::parse("ws:colour=red").unwrap_err().to_string();
        assert!(e.contains("colour") && e.contains("victim"), "{e}");
        let e = Policy::parse("ws:victim=psychic").unwrap_err().to_string();
        assert!(e.contains("psychic") && e.contains("nearest"), "{e}");
        let e = Policy::parse("ws:steal=0").unwrap_err().to_string();
        assert!(e.contains("steal"), "{e}");
        let e = Policy::parse("ws:victim").unwrap_err().to_string();
        assert!(e.contains("name=value"), "{e}");
    }

    #[test]
    fn steal_amounts() {
        assert_eq!(StealAmount::Half.count(0), 1);
        assert_eq!(StealAmount::Half.count(5), 3);
        assert_eq!(StealAmount::UpTo(4).count(10), 4);
        assert_eq!(StealAmount::UpTo(4).count(2), 2);
        assert_eq!(StealAmount::One.count(10), 1);
    }
}
