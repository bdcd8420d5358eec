//! `pdf`: parallel depth-first scheduling (004; 001 section 4.4.2). Every
//! ready task sits in one central queue ordered by the position it has in the
//! sequential program ([`SerialPath`](super::central::SerialPath)), and a
//! worker that needs work takes the task the sequential program would have run
//! earliest. So the workers stay close to the serial execution's frontier and
//! share what it has in cache, which is why PDF uses a shared cache
//! constructively where work stealing's workers drift apart (004).
//!
//! Loops split lazily into halves like every other policy; the right half of
//! each split is later in serial order than everything of the left half, so
//! the queue hands the chunks out in sequential order.
//! This file holds the decisions (the order); `central.rs` carries them out.

use super::central::Central;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, StealAmount, VictimKind};
use crate::error::Error;

const OPTIONS: &[OptionInfo] = &[OptionInfo { name: "spin", values: "0..=100000", default: "64", help: "idle rounds before yielding, then parking" }];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "pdf",
        summary: "parallel depth-first: one queue, the task earliest in serial order first",
        source: "004 (Liaskovitis et al., SPAA'06); 001 section 4.4.2",
        options: OPTIONS,
    },
    build,
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy {
        name: "pdf",
        kind: PolicyKind::Central(Central::Pdf),
        order: Order::Lifo,
        victim: VictimKind::Random,
        steal: StealAmount::One,
        radix: 0,
        idle: Idle { spin_rounds: spin, yield_rounds: 16 },
        dedicated_manager: false,
    })
}
