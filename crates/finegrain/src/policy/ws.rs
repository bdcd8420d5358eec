//! `ws`: software work stealing, the papers' baseline (Sanchez, Yoo,
//! Kozyrakis, "Flexible Architectural Support for Fine-Grain Scheduling",
//! ASPLOS 2010, section 4.1).
//!
//! Per-worker Chase-Lev deques; the owner works LIFO at the bottom, thieves take
//! from the top. The paper's tuned configuration steals half the victim's tasks
//! from the nearest neighbour; our default victim is random (the Cilk choice),
//! which does better on machines whose topology sysfs does not describe.
//! `ws-paper` is the paper's configuration by name (victim `nearest`, steal
//! `half`; its phases and scopes end on X10-style counters, as every `ws`'s).

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, StealAmount, VictimKind, ORDER, SPIN};
use crate::error::Error;

/// Work stealing's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ws {
    /// Which worker a thief tries first.
    pub victim: VictimKind,
    /// How many tasks one steal takes.
    pub steal: StealAmount,
    /// Group size of the `hier` victim order.
    pub radix: usize,
}

const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "victim",
        values: "random | round-robin | nearest | hier",
        default: "random",
        help: "which worker a thief tries first (nearest: by hardware distance from sysfs; hier: own group of `radix` first)",
    },
    OptionInfo { name: "steal", values: "one | half | <k>", default: "half", help: "how many tasks one steal takes" },
    ORDER,
    OptionInfo { name: "radix", values: "2..=1024", default: "8", help: "group size of the hier victim order" },
    SPIN,
];

/// `ws-paper`'s options: `ws`'s with the paper's victim as the default.
const PAPER_OPTIONS: &[OptionInfo] = &[OptionInfo { default: "nearest", ..OPTIONS[0] }, OPTIONS[1], OPTIONS[2], OPTIONS[3], OPTIONS[4]];
const _: () = assert!(matches!(OPTIONS[0].name.as_bytes(), b"victim") && OPTIONS.len() == 5);

pub(crate) static PAPER: Registration = Registration {
    info: PolicyInfo {
        name: "ws-paper",
        summary: "ws as the ADM paper's software baseline: steal half from the nearest neighbour",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1",
        options: PAPER_OPTIONS,
    },
    build: |s| build_with(s, "ws-paper", "nearest"),
    value,
};

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "ws",
        summary: "work stealing over per-worker Chase-Lev deques",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1; Chase, Lev, Dynamic Circular Work-Stealing Deque, SPAA 2005",
        options: OPTIONS,
    },
    build,
    value,
};

fn value(p: &Policy, option: &str) -> Option<String> {
    let PolicyKind::Ws(w) = p.kind else { return None };
    Some(match option {
        "victim" => w.victim.name().to_string(),
        "steal" => match w.steal {
            StealAmount::One => "one".to_string(),
            StealAmount::Half => "half".to_string(),
            StealAmount::UpTo(k) => k.to_string(),
        },
        "radix" => w.radix.to_string(),
        _ => return p.common_value(option),
    })
}

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    build_with(spec, "ws", "random")
}

fn build_with(spec: &mut Spec<'_>, name: &'static str, victim: &'static str) -> Result<Policy, Error> {
    let victim = VictimKind::from_name(spec.choice("victim", &VictimKind::NAMES, victim)?).expect("checked by choice");
    let steal = match spec.raw("steal") {
        None | Some("half") => StealAmount::Half,
        Some("one") => StealAmount::One,
        Some(v) => match v.parse::<usize>() {
            Ok(k) if k >= 1 => StealAmount::UpTo(k),
            _ => {
                return Err(Error::BadValue { policy: "ws", option: "steal", value: v.to_string(), valid: "one | half | a positive integer".into() })
            }
        },
    };
    let order = match spec.choice("order", &["lifo", "fifo"], "lifo")? {
        "fifo" => Order::Fifo,
        _ => Order::Lifo,
    };
    let radix = spec.int("radix", 2, 1024, 8)?;
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy { name, kind: PolicyKind::Ws(Ws { victim, steal, radix }), order, idle: Idle::with_spin(spin), space_steal: Stealing::Baseline })
}
