// crates/finegrain/src/policy/ring.rs
use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, StealAmount, VictimKind, Ws, SPIN};
use crate::error::Error;

const OPTIONS: &[OptionInfo] = &[SPIN];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo { name: "ring", summary: "steal one task from the next worker", source: "(your reference)", options: OPTIONS },
    build,
    value: |p, option| p.common_value(option),
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    let ws = Ws { victim: VictimKind::RoundRobin, steal: StealAmount::One, radix: 8 };
    Ok(Policy { name: "ring", kind: PolicyKind::Ws(ws), order: Order::Lifo, idle: Idle::with_spin(spin), space_steal: Stealing::Baseline })
}
