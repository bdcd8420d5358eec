//! Tests of the task graph's builder and validation.

use super::*;

fn meta() -> Meta {
    Meta::synthetic("t", "test", 1)
}

#[test]
fn a_join_builds_and_validates() {
    let mut b = Builder::new(meta());
    let l = b.latch();
    let child = b.task(TaskKind::Join, Some(l));
    b.push(0, Step::Spawn { task: child });
    b.work(0, 10, &[Lines { first: 0, count: 2, write: false }]);
    b.work(0, 5, &[]);
    b.push(0, Step::Wait { latch: l });
    b.work(child, 7, &[]);
    let g = b.finish().unwrap();
    assert_eq!(g.steps_of(0).len(), 3, "the two work stretches merge");
    assert_eq!(g.total_cycles(), 22);
    assert_eq!(g.latch_counts(), vec![1]);
}

#[test]
fn a_task_spawned_twice_or_never_is_rejected() {
    let mut b = Builder::new(meta());
    let t = b.task(TaskKind::Scope, None);
    b.push(0, Step::Spawn { task: t });
    b.push(0, Step::Spawn { task: t });
    assert!(b.finish().unwrap_err().0.contains("made ready 2 times"));
    let mut b = Builder::new(meta());
    b.task(TaskKind::Scope, None);
    assert!(b.finish().unwrap_err().0.contains("made ready 0 times"));
}

#[test]
fn graph_nodes_are_released_by_edges() {
    let mut b = Builder::new(meta());
    let l = b.latch();
    let a = b.task(TaskKind::Node, Some(l));
    let c = b.task(TaskKind::Node, Some(l));
    b.edge(a, c);
    b.push(0, Step::Spawn { task: a });
    b.push(0, Step::Wait { latch: l });
    let g = b.finish().unwrap();
    assert_eq!(g.succs_of(a), &[c]);
    let mut bad = g.clone();
    bad.tasks[c as usize].preds = 2;
    assert!(bad.validate().is_err());
    let mut bad = g;
    bad.steps.push(Step::Wait { latch: 9 });
    bad.tasks[0].steps.1 += 1;
    assert!(bad.validate().unwrap_err().0.contains("latch 9"));
}

fn space_of(hint: SpaceHint, dims: [u32; 3]) -> Result<TaskGraph, GraphError> {
    let mut b = Builder::new(meta());
    let l = b.latch();
    let n = dims.iter().product::<u32>();
    let tasks: Vec<TaskId> = (0..n)
        .map(|_| {
            let t = b.task(TaskKind::Scope, Some(l));
            b.push(0, Step::Spawn { task: t });
            b.work(t, 10, &[]);
            t
        })
        .collect();
    b.push(0, Step::Wait { latch: l });
    b.space(SpaceRecord { dims, hint, tasks });
    b.finish()
}

#[test]
fn task_spaces_validate() {
    let g = space_of(SpaceHint::Bins { keys: vec![0, 3, 1, 2, 2, 0], min: 0, max: 3 }, [3, 2, 1]).unwrap();
    assert_eq!(g.space_of_tasks(), vec![None, Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)]);
    let e = |h, d| space_of(h, d).unwrap_err().0;
    assert!(e(SpaceHint::None, [3, 0, 1]).contains("dimension 1 is zero"));
    assert!(e(SpaceHint::Bins { keys: vec![0; 5], min: 0, max: 3 }, [3, 2, 1]).contains("5 bin keys for 6 tasks"));
    assert!(e(SpaceHint::Bins { keys: vec![0, 0, 9, 0, 0, 0], min: 0, max: 3 }, [3, 2, 1]).contains("outside 0..=3"));
    assert!(e(SpaceHint::Signatures(vec![[0; 16]; 2]), [3, 1, 1]).contains("2 signatures for 3 tasks"));
    let mut bad = g.clone();
    bad.spaces[0].dims = [7, 1, 1];
    assert!(bad.validate().unwrap_err().0.contains("make 7 tasks, but it lists 6"));
    let mut bad = g.clone();
    bad.spaces[0].tasks[1] = 1;
    assert!(bad.validate().unwrap_err().0.contains("twice"));
    let mut bad = g.clone();
    bad.spaces[0].tasks[1] = 0;
    assert!(bad.validate().unwrap_err().0.contains("the root"));
    let mut bad = g;
    bad.spaces[0].tasks[1] = 99;
    assert!(bad.validate().unwrap_err().0.contains("out of range"));
}

#[test]
fn loops_own_their_leaves() {
    let mut b = Builder::new(meta());
    let (id, leaves) = b.new_loop(3, 4, 10);
    for t in leaves {
        b.work(t, 1, &[]);
    }
    b.push(0, Step::Loop { id });
    let g = b.finish().unwrap();
    assert_eq!(g.leaves_of(0), 1..4);
}
