//! What the reference scheduler plans from: one task space's tasks, each
//! with its work and the set of 64-byte lines it touches (thesis §4.2: the
//! order of accesses is dropped, and a read weighs the same as a write).

use super::ReferenceError;
use finegrain::policy::locality::Space;

/// One task space's tasks, by linear index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceInput {
    pub space: Space,
    /// Work of each task (cycles, or any unit common to all tasks).
    pub work: Vec<u64>,
    /// The lines each task touches: sorted, without repeats.
    pub lines: Vec<Vec<u64>>,
}

impl SpaceInput {
    /// Checks that there is one entry per task; sorts and dedups each
    /// task's lines.
    pub fn new(space: Space, work: Vec<u64>, mut lines: Vec<Vec<u64>>) -> Result<SpaceInput, ReferenceError> {
        if work.len() != space.len() || lines.len() != space.len() {
            return Err(ReferenceError::new(format!(
                "task space {:?} has {} tasks, but {} work entries and {} footprints were given",
                space.dims(),
                space.len(),
                work.len(),
                lines.len()
            )));
        }
        for l in &mut lines {
            l.sort_unstable();
            l.dedup();
        }
        Ok(SpaceInput { space, work, lines })
    }

    pub fn tasks(&self) -> usize {
        self.work.len()
    }
}

/// The footprints with lines renumbered `0..lines` (in order of line
/// number), and the inverse: for each line, the tasks that touch it, in
/// increasing task order. Both in compressed rows.
#[derive(Clone, Debug)]
pub(crate) struct Footprints {
    /// Task `t`'s lines are `line_of[task_off[t]..task_off[t + 1]]`.
    pub task_off: Vec<usize>,
    pub line_of: Vec<u32>,
    /// Line `l`'s tasks are `task_of[line_off[l]..line_off[l + 1]]`.
    pub line_off: Vec<usize>,
    pub task_of: Vec<u32>,
}

impl Footprints {
    pub fn new(input: &SpaceInput) -> Footprints {
        let mut all: Vec<u64> = input.lines.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        let mut task_off = Vec::with_capacity(input.tasks() + 1);
        task_off.push(0);
        let mut line_of = Vec::with_capacity(input.lines.iter().map(Vec::len).sum());
        for ls in &input.lines {
            // Both sorted: one merge-like pass by binary search from the last hit.
            let mut from = 0;
            for &l in ls {
                let i = from + all[from..].partition_point(|&x| x < l);
                line_of.push(i as u32);
                from = i;
            }
            task_off.push(line_of.len());
        }
        let mut count = vec![0usize; all.len() + 1];
        for &l in &line_of {
            count[l as usize + 1] += 1;
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let line_off = count.clone();
        let mut task_of = vec![0u32; line_of.len()];
        let mut next = count;
        for t in 0..input.tasks() {
            for &l in &line_of[task_off[t]..task_off[t + 1]] {
                task_of[next[l as usize]] = t as u32;
                next[l as usize] += 1;
            }
        }
        Footprints { task_off, line_of, line_off, task_of }
    }

    pub fn lines(&self) -> usize {
        self.line_off.len() - 1
    }

    pub fn of_task(&self, t: u32) -> &[u32] {
        &self.line_of[self.task_off[t as usize]..self.task_off[t as usize + 1]]
    }

    pub fn sharers(&self, l: u32) -> &[u32] {
        &self.task_of[self.line_off[l as usize]..self.line_off[l as usize + 1]]
    }
}

/// Counts distinct lines over sets of tasks, reusing one stamp per line.
#[derive(Debug)]
pub(crate) struct UnionCounter {
    stamp: Vec<u32>,
    now: u32,
}

impl UnionCounter {
    pub fn new(lines: usize) -> UnionCounter {
        UnionCounter { stamp: vec![0; lines], now: 0 }
    }

    /// Lines in the union of `tasks`' footprints.
    pub fn union(&mut self, fp: &Footprints, tasks: impl IntoIterator<Item = u32>) -> usize {
        self.now += 1;
        if self.now == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.now = 1;
        }
        let mut n = 0;
        for t in tasks {
            for &l in fp.of_task(t) {
                if std::mem::replace(&mut self.stamp[l as usize], self.now) != self.now {
                    n += 1;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprints_invert_and_count_unions() {
        let s = Space::new(&[3]).unwrap();
        let inp = SpaceInput::new(s, vec![1, 1, 1], vec![vec![100, 7, 7], vec![7, 9], vec![]]).unwrap();
        assert_eq!(inp.lines[0], vec![7, 100]);
        let fp = Footprints::new(&inp);
        assert_eq!(fp.lines(), 3);
        assert_eq!(fp.of_task(0), &[0, 2]);
        assert_eq!(fp.sharers(0), &[0, 1]);
        assert_eq!(fp.sharers(1), &[1]);
        let mut u = UnionCounter::new(fp.lines());
        assert_eq!(u.union(&fp, [0, 1]), 3);
        assert_eq!(u.union(&fp, [1, 2]), 2);
        assert!(SpaceInput::new(s, vec![1], vec![]).unwrap_err().to_string().contains("3 tasks"));
    }
}
