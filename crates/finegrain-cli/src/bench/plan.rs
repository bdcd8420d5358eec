//! Everything `bench` will do, checked before anything runs.

use super::input::InputFile;
use crate::cli::BenchArgs;
use crate::peers::Peer;
use crate::specs::{self, PolicySpec};
use finegrain_workloads::{Size, Workload};
use std::path::PathBuf;

/// Who runs a workload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// The serial reference program: the baseline of every speedup.
    Serial,
    /// finegrain under the policy with this index in `Plan::policies`.
    Finegrain(usize),
    Rayon,
    /// chili, where the workload has a chili version (`chili_programs`).
    Chili,
    /// The C++ peer with this index in `Plan::peers`.
    Peer(usize),
    /// That peer's own serial program (`mode=serial`), one thread: the
    /// baseline of the peer's speedups, so that a compiler's gain is not
    /// counted as a runtime's.
    PeerSerial(usize),
}

/// One column of the experiment: a runtime at a thread count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub runtime: Runtime,
    pub threads: usize,
}

pub struct Plan {
    pub workloads: Vec<Box<dyn Workload>>,
    pub policies: Vec<PolicySpec>,
    pub threads: Vec<usize>,
    pub size: Size,
    pub reps: usize,
    pub warmup: usize,
    pub seed: u64,
    pub out: PathBuf,
    pub rayon: bool,
    pub chili: bool,
    pub peers: Vec<Peer>,
    /// Why requested peers will not run (missing executables), said once.
    pub peer_notes: Vec<String>,
    pub plots: bool,
    /// Print the per-operation cost tables (`--ops`).
    pub ops: bool,
    /// `--input`: the file every workload runs on instead of its generated input.
    pub input: Option<InputFile>,
}

impl Plan {
    pub fn from_args(a: &BenchArgs) -> Result<Plan, String> {
        let workloads = specs::workloads(a.workloads.as_deref())?;
        if workloads.is_empty() {
            return Err("no workloads are registered in finegrain-workloads yet; nothing to run".into());
        }
        let policies = specs::policies(a.policies.as_deref())?;
        let mut threads = specs::threads(a.threads.as_deref())?;
        threads.sort_unstable();
        let size = specs::size(&a.size)?;
        if a.reps == 0 {
            return Err("--reps must be at least 1".into());
        }
        let (workloads, input) = match &a.input {
            Some(path) => super::input::plan(path, a.workloads.is_some().then_some(workloads)).map(|(w, f)| (w, Some(f)))?,
            None => (workloads, None),
        };
        let (peers, peer_notes) = if a.peers { crate::peers::discover_or_build(&a.peers_dir) } else { (Vec::new(), Vec::new()) };
        Ok(Plan {
            workloads,
            policies,
            threads,
            size,
            reps: a.reps,
            warmup: a.warmup,
            seed: a.seed,
            out: a.out.clone(),
            rayon: !a.no_rayon,
            chili: !a.no_chili,
            peers,
            peer_notes,
            plots: !a.no_plots,
            ops: a.ops,
            input,
        })
    }

    /// The configurations of one workload, in report order: serial, each policy,
    /// Rayon, chili, peers; thread counts ascending within each.
    /// `peers_ok[p]`: whether peer `p` runs this workload.
    pub fn configs(&self, has_rayon: bool, has_chili: bool, peers_ok: &[bool]) -> Vec<Config> {
        let mut v = vec![Config { runtime: Runtime::Serial, threads: 1 }];
        let mut add = |rt: Runtime| v.extend(self.threads.iter().map(|&threads| Config { runtime: rt, threads }));
        (0..self.policies.len()).for_each(|p| add(Runtime::Finegrain(p)));
        if has_rayon {
            add(Runtime::Rayon);
        }
        if has_chili {
            add(Runtime::Chili);
        }
        for p in (0..self.peers.len()).filter(|&p| peers_ok.get(p).copied().unwrap_or(false)) {
            if crate::peers::has_serial(self.peers[p].name) {
                v.push(Config { runtime: Runtime::PeerSerial(p), threads: 1 });
            }
            v.extend(self.threads.iter().map(|&threads| Config { runtime: Runtime::Peer(p), threads }));
        }
        v
    }

    /// Where a runtime sorts in reports (the order of `configs`).
    pub fn rank(&self, rt: Runtime) -> usize {
        match rt {
            Runtime::Serial => 0,
            Runtime::Finegrain(p) => 1 + p,
            Runtime::Rayon => 1 + self.policies.len(),
            Runtime::Chili => 2 + self.policies.len(),
            Runtime::PeerSerial(p) => 3 + self.policies.len() + 2 * p,
            Runtime::Peer(p) => 4 + self.policies.len() + 2 * p,
        }
    }

    /// `serial`, `finegrain`, `rayon`, `chili`, or the peer's runtime name.
    pub fn runtime_name(&self, rt: Runtime) -> &str {
        match rt {
            Runtime::Serial => "serial",
            Runtime::Finegrain(_) => "finegrain",
            Runtime::Rayon => "rayon",
            Runtime::Chili => "chili",
            Runtime::Peer(p) => self.peers[p].name,
            Runtime::PeerSerial(p) => crate::peers::serial_name(self.peers[p].name),
        }
    }

    /// The name in tables and legends: the policy spec as written, else the runtime.
    pub fn label(&self, rt: Runtime) -> String {
        match rt {
            Runtime::Finegrain(p) => self.policies[p].label.clone(),
            other => self.runtime_name(other).to_string(),
        }
    }
}
