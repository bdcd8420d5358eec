//! The scheduling mechanisms, one file each, each implementing
//! [`SimMechanism`](super::mechanism::SimMechanism) over the shared
//! [`Ctx`](super::context::Ctx):
//!
//! | file | policies | models |
//! |---|---|---|
//! | `ws.rs` | `ws` | the runtime's `ws/`: Chase-Lev deques, steal rounds |
//! | `adm.rs` | `adm-central`, `adm-hier` | the runtime's `adm/`: private queues, managers, messages (ASPLOS 2010) |
//! | `unit.rs` | `carbon`, `sw-hier`, `pdf` | the runtime's `unit/`: Carbon's task unit (ISCA 2007), the locked global queue |
//! | `fixed.rs` | `static` | the static-loop baseline (ASPLOS 2023, section 6) |
//! | `ideal.rs` | `ideal` | a zero-cost task queue with perfect knowledge (ISCA 2007, section 6.1) |
//!
//! A file here imports the context, the trait and the engine's leaf types
//! (items, costs, result buckets), never the event loop.

pub(crate) mod adm;
pub(crate) mod fixed;
pub(crate) mod ideal;
pub(crate) mod unit;
pub(crate) mod ws;
