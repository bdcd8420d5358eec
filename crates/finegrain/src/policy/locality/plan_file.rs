//! Plan files: plans made offline (the reference scheduler of
//! `finegrain-sim`, `finegrain plan`) kept on disk for
//! `TaskSpace::schedule` to replay, one plan per task
//! space of a recorded run, in the order the spaces ran.
//!
//! # Format, version 1
//!
//! Text, one record per line, fields separated by single spaces; lines that
//! start with `#` are comments and blank lines are ignored.
//!
//! ```text
//! finegrain-plan 1                       magic and version
//! plans P                                how many plans follow
//! plan MANAGER NX NY NZ WORKERS          a plan: who made it, its space, its workers
//! worker G                               worker 0 runs the next G groups, in order
//! T t0 t1 ...                            a group of task indices (Group::Tasks)
//! L start end                            a run of linear indices (Group::Linear)
//! B lx ly lz hx hy hz r0 r1 r2           a box with its raster order (Group::Box)
//! worker G                               worker 1 ...
//! end                                    closes the plan
//! ```
//!
//! A plan's `T` groups are stored with their tasks, so a parsed plan's
//! [`Plan::tasks`] lists them in group order. Parsing checks every plan
//! with [`Plan::check`]: a file whose plan skips or repeats a task, or names
//! one outside its space, is rejected with the plan's number.

use super::{Group, IndexBox, Plan, Space};
use std::fmt::{self, Write as _};
use std::path::Path;

/// The first line's magic word.
pub const MAGIC: &str = "finegrain-plan";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;

/// Why a plan file cannot be read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFileError {
    /// 1-based line of the problem (0: the whole file, or I/O).
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for PlanFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "plan file: {}", self.msg)
        } else {
            write!(f, "plan file, line {}: {}", self.line, self.msg)
        }
    }
}

impl std::error::Error for PlanFileError {}

/// The plans as a plan file's text.
pub fn write(plans: &[Plan]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{MAGIC} {VERSION}");
    let _ = writeln!(s, "plans {}", plans.len());
    for p in plans {
        let [x, y, z] = p.space.dims();
        let _ = writeln!(s, "plan {} {x} {y} {z} {}", p.manager, p.workers());
        for r in &p.per_worker {
            let _ = writeln!(s, "worker {}", r.len());
            for g in &p.groups[r.clone()] {
                match g {
                    Group::Tasks(r) => {
                        s.push('T');
                        for t in &p.tasks[r.clone()] {
                            let _ = write!(s, " {t}");
                        }
                        s.push('\n');
                    }
                    Group::Linear(r) => {
                        let _ = writeln!(s, "L {} {}", r.start, r.end);
                    }
                    Group::Box(b) => {
                        let _ = writeln!(
                            s,
                            "B {} {} {} {} {} {} {} {} {}",
                            b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2], b.raster[0], b.raster[1], b.raster[2]
                        );
                    }
                }
            }
        }
        s.push_str("end\n");
    }
    s
}

/// Write `plans` to the file at `path`.
pub fn write_file(path: impl AsRef<Path>, plans: &[Plan]) -> Result<(), PlanFileError> {
    let path = path.as_ref();
    std::fs::write(path, write(plans)).map_err(|e| PlanFileError { line: 0, msg: format!("cannot write {}: {e}", path.display()) })
}

/// Read the plans of the file at `path`.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<Plan>, PlanFileError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| PlanFileError { line: 0, msg: format!("cannot read {}: {e}", path.display()) })?;
    parse(&text).map_err(|e| PlanFileError { msg: format!("{}: {}", path.display(), e.msg), ..e })
}

/// The managers that name plans, so that a parsed plan gets the same
/// `&'static str`; any other name is kept by leaking its one string.
const MANAGERS: [&str; 7] = ["baseline", "random", "flux", "binning", "signature", "reference", "mst-only"];

fn manager_name(s: &str) -> &'static str {
    MANAGERS.iter().copied().find(|&m| m == s).unwrap_or_else(|| Box::leak(s.to_owned().into_boxed_str()))
}

/// The lines of a file that carry records, with their 1-based numbers.
struct Records<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    last: usize,
}

impl<'a> Records<'a> {
    fn next(&mut self, what: &str) -> Result<(usize, Vec<&'a str>), PlanFileError> {
        for (i, l) in self.lines.by_ref() {
            self.last = i + 1;
            let l = l.trim();
            if !l.is_empty() && !l.starts_with('#') {
                return Ok((i + 1, l.split_ascii_whitespace().collect()));
            }
        }
        Err(PlanFileError { line: self.last, msg: format!("truncated: the file ends where {what} was expected") })
    }
}

fn num<T: std::str::FromStr>(line: usize, field: &str, what: &str) -> Result<T, PlanFileError> {
    field.parse().map_err(|_| PlanFileError { line, msg: format!("{what} {field:?} is not a number in range") })
}

fn expect(line: usize, f: &[&str], word: &str, fields: usize) -> Result<(), PlanFileError> {
    if f[0] != word || f.len() != fields {
        return Err(PlanFileError { line, msg: format!("expected `{word}` with {} fields, found {:?}", fields - 1, f.join(" ")) });
    }
    Ok(())
}

/// The plans of a plan file's text.
pub fn parse(text: &str) -> Result<Vec<Plan>, PlanFileError> {
    let mut rec = Records { lines: text.lines().enumerate(), last: 0 };
    let (ln, f) = rec.next("the header")?;
    if f.first() != Some(&MAGIC) {
        return Err(PlanFileError { line: ln, msg: format!("not a plan file (the first line must start with {MAGIC:?})") });
    }
    if f.len() != 2 || num::<u32>(ln, f[1], "version")? != VERSION {
        return Err(PlanFileError { line: ln, msg: format!("unsupported version {:?} (this build reads version {VERSION})", f[1..].join(" ")) });
    }
    let (ln, f) = rec.next("`plans`")?;
    expect(ln, &f, "plans", 2)?;
    let count: usize = num(ln, f[1], "plan count")?;
    let mut plans = Vec::new();
    for k in 0..count {
        let (ln, f) = rec.next("`plan`")?;
        expect(ln, &f, "plan", 6)?;
        let dims: Vec<usize> = f[2..5].iter().map(|x| num(ln, x, "dimension")).collect::<Result<_, _>>()?;
        let space = Space::new(&dims).map_err(|e| PlanFileError { line: ln, msg: e.to_string() })?;
        let workers: usize = num(ln, f[5], "worker count")?;
        let mut plan = Plan { space, manager: manager_name(f[1]), tasks: Vec::new(), groups: Vec::new(), per_worker: Vec::new() };
        for _ in 0..workers {
            let (ln, f) = rec.next("`worker`")?;
            expect(ln, &f, "worker", 2)?;
            let groups: usize = num(ln, f[1], "group count")?;
            let first = plan.groups.len();
            for _ in 0..groups {
                let (ln, f) = rec.next("a group")?;
                let g = match f[0] {
                    "T" => {
                        let s = plan.tasks.len();
                        for x in &f[1..] {
                            plan.tasks.push(num(ln, x, "task")?);
                        }
                        Group::Tasks(s..plan.tasks.len())
                    }
                    "L" => {
                        expect(ln, &f, "L", 3)?;
                        Group::Linear(num(ln, f[1], "start")?..num(ln, f[2], "end")?)
                    }
                    "B" => {
                        expect(ln, &f, "B", 10)?;
                        let v: Vec<usize> = f[1..].iter().map(|x| num(ln, x, "box bound")).collect::<Result<_, _>>()?;
                        Group::Box(IndexBox { lo: [v[0], v[1], v[2]], hi: [v[3], v[4], v[5]], raster: [v[6], v[7], v[8]] })
                    }
                    other => return Err(PlanFileError { line: ln, msg: format!("expected a group (T, L or B), found {other:?}") }),
                };
                plan.groups.push(g);
            }
            plan.per_worker.push(first..plan.groups.len());
        }
        let (ln, f) = rec.next("`end`")?;
        expect(ln, &f, "end", 1)?;
        plan.check(space).map_err(|e| PlanFileError { line: ln, msg: format!("plan {k} (of {count}): {e}") })?;
        plans.push(plan);
    }
    if let Ok((ln, f)) = rec.next("") {
        return Err(PlanFileError { line: ln, msg: format!("{count} plans were announced, but more follows: {:?}", f.join(" ")) });
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use super::super::{chunked, flux};
    use super::*;

    fn plans() -> Vec<Plan> {
        let s = Space::new(&[12, 5]).unwrap();
        vec![
            chunked::baseline(s, 4).unwrap(),
            chunked::random(s, 3, 11).unwrap(),
            flux::plan(Space::new(&[8, 8, 2]).unwrap(), [1, 2, 0], 4, &[]).unwrap(),
        ]
    }

    #[test]
    fn plans_round_trip() {
        let ps = plans();
        let text = write(&ps);
        assert!(text.starts_with("finegrain-plan 1\nplans 3\nplan baseline 12 5 1 4\n"), "{text}");
        let back = parse(&text).unwrap();
        assert_eq!(back, ps);
        // Comments and blank lines are allowed anywhere.
        let commented = text.replace("plans 3\n", "# three\n\nplans 3\n   \n");
        assert_eq!(parse(&commented).unwrap(), ps);
        assert_eq!(parse(&write(&[])).unwrap(), vec![]);
    }

    #[test]
    fn files_round_trip() {
        let path = std::env::temp_dir().join(format!("finegrain-plan-test-{}.fgp", std::process::id()));
        write_file(&path, &plans()).unwrap();
        assert_eq!(read(&path).unwrap(), plans());
        std::fs::remove_file(&path).unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.to_string().contains("cannot read"), "{e}");
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn malformed_files_are_clear_errors() {
        let good = write(&plans()[..1]);
        assert!(err("").contains("truncated"));
        assert!(err("finegrain-trace 1\n").contains("not a plan file"));
        assert!(err("finegrain-plan 2\nplans 0\n").contains("unsupported version"));
        assert!(err("finegrain-plan x\n").contains("not a number"));
        // Cut anywhere: truncated, never a panic.
        let lines: Vec<&str> = good.lines().collect();
        for cut in 1..lines.len() {
            let e = err(&lines[..cut].join("\n"));
            assert!(e.contains("truncated"), "cut at {cut}: {e}");
        }
        assert!(err(&good.replace("plans 1", "plans 1 2")).contains("expected `plans`"));
        assert!(err(&good.replace("L 0 15", "X 0 15")).contains("line 5: expected a group"));
        assert!(err(&good.replace("L 0 15", "L 0 fifteen")).contains("not a number"));
        assert!(err(&good.replace("12 5 1", "12 0 1")).contains("dimension 1 is zero"));
        assert!(err(&format!("{good}junk\n")).contains("more follows"));
    }

    #[test]
    fn plans_that_fail_their_check_are_rejected() {
        let good = write(&plans()[1..2]);
        // A repeated task, a missing one, one outside the space.
        let first_t = good.lines().find(|l| l.starts_with("T ")).unwrap();
        let t0: Vec<&str> = first_t.split(' ').collect();
        let dup = good.replacen(first_t, &format!("{first_t} {}", t0[1]), 1);
        assert!(err(&dup).contains("planned twice"), "{}", err(&dup));
        let missing = good.replacen(first_t, &t0[..t0.len() - 1].join(" "), 1);
        assert!(err(&missing).contains("never planned"));
        let outside = good.replacen(first_t, &format!("{first_t} 60"), 1);
        assert!(err(&outside).contains("outside the space"));
        assert!(err(&outside).contains("plan 0 (of 1)"));
        let e = err(&write(&plans()[..1]).replace("L 0 15", "L 0 99"));
        assert!(e.contains("outside the space"), "{e}");
    }
}
