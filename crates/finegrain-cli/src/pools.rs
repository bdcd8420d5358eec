//! The thread pools of a benchmark session, built once and reused by every
//! repetition and workload: starting threads is not what is being measured, and
//! a fresh pool's first run would also pay for cold caches and page faults.

use crate::specs::PolicySpec;
use std::collections::BTreeMap;
use std::num::NonZeroUsize;

pub struct Pools {
    finegrain: BTreeMap<(usize, usize), finegrain::Pool>,
    rayon: BTreeMap<usize, rayon::ThreadPool>,
    chili: BTreeMap<usize, chili::ThreadPool>,
}

impl Pools {
    /// One finegrain pool per (policy, thread count) and, if `with_rayon`, one
    /// Rayon pool per thread count. Policies are indexed as in `policies`.
    pub fn build(policies: &[PolicySpec], threads: &[usize], with_rayon: bool) -> Result<Pools, String> {
        let mut finegrain = BTreeMap::new();
        for (pi, p) in policies.iter().enumerate() {
            for &t in threads {
                let pool = finegrain::Pool::builder()
                    .threads(t)
                    .policy(p.policy.canonical())
                    .thread_name(format!("fg-{pi}-{t}"))
                    .build()
                    .map_err(|e| format!("cannot build a pool for {} with {t} threads: {e}", p.label))?;
                finegrain.insert((pi, t), pool);
            }
        }
        let mut rayon = BTreeMap::new();
        if with_rayon {
            for &t in threads {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    // Same stack as finegrain's workers, so deep join recursion is no
                    // reason for one runtime to fail where the other runs.
                    .stack_size(finegrain::DEFAULT_STACK_SIZE)
                    .thread_name(move |i| format!("rayon-{t}-{i}"))
                    .build()
                    .map_err(|e| format!("cannot build a Rayon pool with {t} threads: {e}"))?;
                rayon.insert(t, pool);
            }
        }
        Ok(Pools { finegrain, rayon, chili: BTreeMap::new() })
    }

    /// Add one chili pool per thread count: `t` threads are the thread that
    /// opens a scope on the pool and `t - 1` workers (chili also starts a
    /// heartbeat thread per pool, which sleeps between heartbeats).
    pub fn add_chili(&mut self, threads: &[usize]) {
        for &t in threads {
            let config = chili::Config { thread_count: NonZeroUsize::new(t), ..Default::default() };
            self.chili.insert(t, chili::ThreadPool::with_config(config));
        }
    }

    pub fn finegrain(&self, policy: usize, threads: usize) -> &finegrain::Pool {
        &self.finegrain[&(policy, threads)]
    }

    pub fn rayon(&self, threads: usize) -> Option<&rayon::ThreadPool> {
        self.rayon.get(&threads)
    }

    pub fn chili(&self, threads: usize) -> Option<&chili::ThreadPool> {
        self.chili.get(&threads)
    }
}
