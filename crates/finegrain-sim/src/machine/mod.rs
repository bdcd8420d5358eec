//! TEMPORARY stand-in for the machine model (replaced by the machine step):
//! the API the engine calls, over a flat latency model.
use crate::SimError;

#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    pub cores: usize,
    pub threads_per_core: usize,
    pub ipc: f64,
    pub cores_per_tile: usize,
    pub spm: Option<u32>,
}

impl Preset {
    pub fn max_threads(&self) -> usize {
        self.cores * self.threads_per_core
    }
}

static PRESETS: [Preset; 2] = [
    Preset { name: "adm-cmp", cores: 128, threads_per_core: 2, ipc: 1.0, cores_per_tile: 4, spm: None },
    Preset { name: "host-2", cores: 2, threads_per_core: 1, ipc: 1.0, cores_per_tile: 1, spm: None },
];

pub fn presets() -> &'static [Preset] {
    &PRESETS
}

pub fn preset(name: &str) -> Result<&'static Preset, SimError> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| SimError::UnknownPreset(name.into()))
}

#[derive(Debug, Default, Clone)]
pub struct MemStats {
    pub accesses: u64,
}

#[derive(Debug)]
pub struct Machine {
    threads: usize,
    tpc: usize,
    cpt: usize,
    stats: MemStats,
    l1: Vec<std::collections::HashMap<u64, bool>>,
}

#[derive(Debug, Default, Clone)]
pub struct Server {
    busy: u64,
}

impl Server {
    pub fn new() -> Server {
        Server::default()
    }
    pub fn serve(&mut self, now: u64, service: u64) -> u64 {
        let s = now.max(self.busy);
        self.busy = s + service;
        s
    }
}

impl Machine {
    pub fn new(p: &Preset, threads: usize) -> Result<Machine, SimError> {
        if threads == 0 || threads > p.max_threads() {
            return Err(SimError::Threads(format!("{threads} (preset {} has {})", p.name, p.max_threads())));
        }
        Ok(Machine { threads, tpc: p.threads_per_core, cpt: p.cores_per_tile, stats: MemStats::default(), l1: vec![Default::default(); p.cores] })
    }
    pub fn threads(&self) -> usize {
        self.threads
    }
    pub fn core_of(&self, t: usize) -> usize {
        t / self.tpc
    }
    pub fn tile_of(&self, t: usize) -> usize {
        self.core_of(t) / self.cpt
    }
    pub fn access(&mut self, t: usize, line: u64, write: bool, _now: u64) -> u32 {
        self.stats.accesses += 1;
        let c = self.core_of(t);
        let hit = self.l1[c].contains_key(&line);
        if write {
            for (i, m) in self.l1.iter_mut().enumerate() {
                if i != c {
                    m.remove(&line);
                }
            }
        }
        self.l1[c].insert(line, write);
        if hit {
            1
        } else {
            40
        }
    }
    pub fn msg_latency(&mut self, from: usize, to: usize) -> u32 {
        if self.tile_of(from) == self.tile_of(to) {
            5
        } else {
            25
        }
    }
    pub fn center_latency(&mut self, _t: usize) -> u32 {
        20
    }
    pub fn spm_latency(&mut self, t: usize, owner: usize) -> Option<u32> {
        Some(if t == owner { 2 } else { 20 })
    }
    pub fn stats(&self) -> &MemStats {
        &self.stats
    }
    pub fn reset_stats(&mut self) {
        self.stats = MemStats::default();
    }
}
