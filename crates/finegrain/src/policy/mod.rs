//! The scheduling seam: every decision the runtime makes about where work goes
//! and where an idle worker looks for it.
//!
//! A [`Policy`] is plain data plus pure decision functions (no threads, no
//! atomics): which order a worker takes its own tasks in, which victim a thief
//! tries, how many tasks it takes, and what an idle worker does. The mechanisms
//! (deques, sleeping) live in `deque/`, `sleep/` and `worker.rs` and ask the
//! policy at each decision point. The simulator of a later milestone calls the
//! same functions.
//!
//! Adding a policy is one new file in this folder that defines a
//! [`Registration`] and one line in [`REGISTERED`]. The runtime dispatches on
//! [`PolicyKind`], an enum, so the fast path makes no indirect calls.

pub mod adm;
pub mod carbon;
pub mod central;
mod pdf;
pub mod spec;
pub mod swhier;
pub mod victim;
mod ws;

use crate::error::Error;
pub use spec::Spec;
pub use victim::{VictimKind, VictimOrder};

/// The order in which a worker takes tasks from its own queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Newest first: depth-first, the work-first order of Cilk (the default).
    Lifo,
    /// Oldest first: breadth-first, as gtfold's dataflow form needs (000 section 6.4).
    Fifo,
}

/// How many tasks a thief takes from a victim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StealAmount {
    One,
    /// Half the victim's queue, rounded up (000 section 4.1; 002 section 4.1).
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

/// What a worker that found no work does next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdleAction {
    /// Try again at once (after a CPU pause hint).
    Spin,
    /// Give the core away, then try again.
    Yield,
    /// Announce sleep and park until woken.
    Park,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Idle {
    pub spin_rounds: u32,
    pub yield_rounds: u32,
}

impl Idle {
    /// Decision after `failed_rounds` consecutive rounds of finding nothing.
    #[inline]
    pub fn action(&self, failed_rounds: u32) -> IdleAction {
        if failed_rounds < self.spin_rounds {
            IdleAction::Spin
        } else if failed_rounds < self.spin_rounds + self.yield_rounds {
            IdleAction::Yield
        } else {
            IdleAction::Park
        }
    }
}

/// Which runtime mechanism a policy runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// Per-worker Chase-Lev deques, thieves steal directly (000 section 4.1).
    WorkStealing,
    /// Private per-worker queues; work moves only by messages (000 section 4.1, ADM).
    Messaging,
    /// One central task unit under a lock, plus per-worker buffers (`carbon`,
    /// `sw-hier`, `pdf`; see `central.rs`).
    Central(central::Central),
}

/// A parsed policy spec: its mechanism and its decision parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub name: &'static str,
    pub kind: PolicyKind,
    pub order: Order,
    pub victim: VictimKind,
    pub steal: StealAmount,
    /// Group size of the `hier` victim order.
    pub radix: usize,
    pub idle: Idle,
    /// Message-based policies: the managers run on one extra thread
    /// (`manager=dedicated`) instead of on workers.
    pub dedicated_manager: bool,
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
        let spec = Spec::parse(text)?;
        let reg = REGISTERED
            .iter()
            .find(|r| r.info.name == spec.name)
            .ok_or_else(|| Error::UnknownPolicy { given: spec.name.to_string(), valid: REGISTERED.iter().map(|r| r.info.name).collect() })?;
        let opts: Vec<&'static str> = reg.info.options.iter().map(|o| o.name).collect();
        let mut spec = spec.for_policy(reg.info.name);
        let policy = (reg.build)(&mut spec)?;
        spec.finish(&opts)?;
        Ok(policy)
    }

    /// The spec with every option spelled out, as recorded in reports.
    pub fn canonical(&self) -> String {
        let steal = match self.steal {
            StealAmount::One => "one".to_string(),
            StealAmount::Half => "half".to_string(),
            StealAmount::UpTo(k) => k.to_string(),
        };
        let order = match self.order {
            Order::Lifo => "lifo",
            Order::Fifo => "fifo",
        };
        match self.kind {
            PolicyKind::WorkStealing => format!(
                "{}:victim={},steal={},order={},radix={},spin={}",
                self.name,
                self.victim.name(),
                steal,
                order,
                self.radix,
                self.idle.spin_rounds
            ),
            PolicyKind::Messaging => {
                let radix = if self.radix > 0 { format!("radix={},", self.radix) } else { String::new() };
                let manager = if self.dedicated_manager { "dedicated" } else { "worker" };
                format!("{}:{}order={},burst={},spin={},manager={}", self.name, radix, order, steal, self.idle.spin_rounds, manager)
            }
            PolicyKind::Central(c) => {
                let opts = match c {
                    central::Central::Carbon(c) => format!("deque={},prefetch={},", c.deque, c.prefetch),
                    central::Central::SwHier(s) => {
                        let o = match s.order {
                            central::GlobalOrder::Fifo => "fifo",
                            central::GlobalOrder::Lifo => "lifo",
                            central::GlobalOrder::Priority => "priority",
                            central::GlobalOrder::Serial => "serial",
                        };
                        format!("private={},order={},", s.private, o)
                    }
                    central::Central::Pdf => String::new(),
                };
                format!("{}:{}spin={}", self.name, opts, self.idle.spin_rounds)
            }
        }
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
    /// Where the algorithm comes from (paper and section).
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

/// One policy's entry in the registry.
pub(crate) struct Registration {
    pub(crate) info: PolicyInfo,
    pub(crate) build: fn(&mut Spec<'_>) -> Result<Policy, Error>,
}

/// Every policy the runtime knows. Adding one: a new file and a line here.
static REGISTERED: &[&Registration] =
    &[&ws::REGISTRATION, &adm::CENTRAL, &adm::HIER, &carbon::REGISTRATION, &swhier::REGISTRATION, &pdf::REGISTRATION];

/// Every registered policy with its options and defaults.
///
/// ```
/// let names: Vec<_> = finegrain::policies().map(|p| p.name).collect();
/// assert!(names.contains(&"ws"));
/// ```
pub fn policies() -> impl Iterator<Item = &'static PolicyInfo> {
    REGISTERED.iter().map(|r| &r.info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_options() {
        let p = Policy::parse("ws").unwrap();
        assert_eq!((p.order, p.victim, p.steal), (Order::Lifo, VictimKind::Random, StealAmount::Half));
        let p = Policy::parse(" ws:victim=nearest, steal=4 ,order=fifo").unwrap();
        assert_eq!((p.order, p.victim, p.steal), (Order::Fifo, VictimKind::Nearest, StealAmount::UpTo(4)));
        assert_eq!(Policy::parse(&p.canonical()).unwrap(), p);
        for spec in ["carbon", "carbon:deque=4,prefetch=0", "sw-hier:order=priority,private=2", "pdf", "adm-hier:radix=4"] {
            let p = Policy::parse(spec).unwrap();
            assert_eq!(Policy::parse(&p.canonical()).unwrap(), p, "{spec} -> {}", p.canonical());
        }
        assert!(Policy::parse("sw-hier:order=serial").is_err());
        assert!(Policy::parse("carbon:deque=0").is_err());
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

    #[test]
    fn idle_spins_then_yields_then_parks() {
        let i = Idle { spin_rounds: 2, yield_rounds: 1 };
        assert_eq!([i.action(0), i.action(1), i.action(2), i.action(3)], [IdleAction::Spin, IdleAction::Spin, IdleAction::Yield, IdleAction::Park]);
    }
}
