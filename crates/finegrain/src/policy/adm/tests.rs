//! Unit tests of the ADM decisions (`policy/adm/`).

use super::*;

#[test]
fn a_partition_is_served_again_once_its_steal_has_ended() {
    // 32 workers, radix 8: the root manages four partitions of eight.
    let tree = Tree::new(32, 8);
    let mut root = ManagerNode::new(&tree, 1, 0, 8);
    for p in 1..4 {
        assert!(root.on_update(&tree, p, 0, true).iter().all(|a| !matches!(a, Action::Steal { .. })));
    }
    let first = root.on_update(&tree, 0, 4, false);
    assert!(first.contains(&Action::Steal { victim: 0, stealer_first: 16, k: 1, ends: Some(1) }), "{first:?}");
    // Partition 2 spreads its one task inside at once, so its report
    // (nothing, starving) does not change. Its steal is in flight until
    // its end comes back: more work elsewhere does not pair it again.
    let later = root.on_update(&tree, 0, 16, false);
    assert!(!later.iter().any(|a| matches!(a, Action::Steal { stealer_first: 16, .. })), "{later:?}");
    // An update that ends a steal decided at another level does not count.
    let other = root.on_update_ending(&tree, 2, 0, true, false, Some(0));
    assert!(!other.iter().any(|a| matches!(a, Action::Steal { stealer_first: 16, .. })), "{other:?}");
    // The end: partition 2 is still starving and is served again.
    let again = root.on_update_ending(&tree, 2, 0, true, false, Some(1));
    assert!(again.iter().any(|a| matches!(a, Action::Steal { stealer_first: 16, .. })), "{again:?}");
}

#[test]
fn the_end_of_a_steal_goes_up_to_the_level_that_decided_it() {
    // 64 workers, radix 4: three levels (4, 16, 64 workers).
    let t = Tree::new(64, 4);
    let mut g0 = ManagerNode::new(&t, 0, 0, 8);
    // The stealer's STEALER_UPDATE for a level-2 steal: passed up at once,
    // even though the partition's report has not changed.
    for w in 0..4 {
        g0.on_update(&t, w, 0, true);
    }
    let up = g0.on_stealer_update(&t, 0, 0, true, Some(2));
    assert_eq!(up, vec![Action::Update { count: 0, starving: true, waiting: false, ends: Some(2) }]);
    let mut g1 = ManagerNode::new(&t, 1, 0, 8);
    let up = g1.on_update_ending(&t, 0, 0, true, false, Some(2));
    assert!(up.contains(&Action::Update { count: 0, starving: true, waiting: false, ends: Some(2) }), "{up:?}");
    // A share that ends nothing reports only a change.
    let mut g0 = ManagerNode::new(&t, 0, 1, 8);
    assert!(!g0.on_update(&t, 4, 3, false).is_empty());
    assert!(g0.on_stealer_update(&t, 5, 0, false, None).is_empty());
}

#[test]
fn a_steal_into_an_empty_partition_still_reports_its_end() {
    let t = Tree::new(64, 4);
    let mut g1 = ManagerNode::new(&t, 1, 2, 8);
    // Believed empty: an empty steal goes down to the first child.
    let d = g1.distribute(&t, 0, 5, Some(2));
    assert_eq!(d, vec![Action::Steal { victim: 8, stealer_first: 0, k: 0, ends: Some(2) }]);
    let mut g0 = ManagerNode::new(&t, 0, 8, 8);
    let d = g0.distribute(&t, 0, 0, Some(2));
    assert_eq!(d, vec![Action::Steal { victim: 32, stealer_first: 0, k: 0, ends: Some(2) }]);
    // A share that carries no end adds none.
    assert!(g0.distribute(&t, 0, 3, None).is_empty());
}

#[test]
fn tree_shape() {
    let t = Tree::new(64, 8);
    assert_eq!(t.levels, 2);
    assert_eq!(t.children(0, 1), 8..16);
    assert_eq!(t.children(1, 0), 0..8);
    assert!(t.hosts(1, 0) && t.hosts(0, 8) && !t.hosts(1, 8));
    assert_eq!(Tree::new(8, 8).levels, 1);
    assert_eq!(Tree::new(9, 8).levels, 2);
    let t = Tree::new(10, 4);
    assert_eq!(t.children(0, 2), 8..10);
    assert_eq!(t.children(1, 0), 0..3);
}

#[test]
fn central_pairs_starving_with_fullest() {
    let t = Tree::single(4);
    let mut m = ManagerNode::new(&t, 0, 0, 8);
    assert!(m.on_update(&t, 1, 6, false).is_empty());
    assert!(m.on_update(&t, 2, 2, false).is_empty());
    let a = m.on_update(&t, 3, 0, true);
    assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 3, k: 3, ends: Some(0) }]);
    // Already asked: no second request until the stealer reports.
    assert!(m.on_update(&t, 3, 0, true).is_empty());
    let a = m.on_stealer_update(&t, 3, 0, true, Some(0));
    assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 3, k: 2, ends: Some(0) }]);
}

#[test]
fn root_unblocks_when_everyone_starves() {
    let t = Tree::single(2);
    let mut m = ManagerNode::new(&t, 0, 0, 8);
    assert!(m.on_update(&t, 0, 0, true).is_empty());
    assert_eq!(m.on_update(&t, 1, 0, true), vec![Action::Unblock]);
    assert!(m.on_update(&t, 1, 0, true).is_empty(), "unblock once");
}

#[test]
fn hier_level0_reports_up_and_parent_steals_across_partitions() {
    let t = Tree::new(8, 4);
    let mut g0 = ManagerNode::new(&t, 0, 0, 8);
    let mut root = ManagerNode::new(&t, 1, 0, 8);
    // Group 0 all starving: it reports a starving partition.
    let mut ups = Vec::new();
    for w in 0..4 {
        ups.extend(g0.on_update(&t, w, 0, true));
    }
    assert_eq!(ups.last(), Some(&Action::Update { count: 0, starving: true, waiting: false, ends: None }));
    assert!(root.on_update(&t, 1, 16, false).is_empty());
    let a = root.on_update(&t, 0, 0, true);
    assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 0, k: 8, ends: Some(1) }]);
    // Group 1's manager splits it: i-th victim worker -> i-th stealer worker.
    let mut g1 = ManagerNode::new(&t, 0, 1, 8);
    for (w, c) in [(4, 8), (5, 8), (6, 0), (7, 0)] {
        g1.on_update(&t, w, c, false);
    }
    let d = g1.distribute(&t, 0, 8, Some(1));
    assert_eq!(
        d,
        vec![Action::Steal { victim: 4, stealer_first: 0, k: 4, ends: Some(1) }, Action::Steal { victim: 5, stealer_first: 1, k: 4, ends: None }]
    );
}

#[test]
fn token_book_completes_only_when_armed_and_balanced() {
    let add = |a: usize, b: usize| a + b;
    let t = |enqueued, ran, partial, armed| PhaseTokens { phase: 7, enqueued, ran, partial, armed };
    let mut root = TokenBook::default();
    // A worker's finished tasks may arrive before the caller arms the phase.
    root.add(t(0, 2, 5, false), add);
    assert_eq!(root.take_complete(7, 0), None);
    root.add(t(2, 0, 0, false), add);
    assert_eq!(root.take_complete(7, 0), None, "balanced but not armed");
    root.add(t(1, 0, 0, true), add);
    assert_eq!(root.take_complete(7, 0), None, "armed but one task outstanding");
    root.add(t(0, 1, 10, false), add);
    assert_eq!(root.take_complete(7, 1), None, "an enqueue lent outside messages: one more to finish");
    assert_eq!(root.take_complete(7, 0), Some(t(3, 3, 15, true)));
    assert!(root.is_empty());
    // An entry of finished tasks without value-less ones keeps its partial.
    let mut m = TokenBook::default();
    m.add(t(4, 0, 99, false), add);
    assert_eq!(m.add(t(0, 1, 3, false), add).partial, 3);
    assert_eq!(m.take_any().map(|e| (e.enqueued, e.ran, e.partial)), Some((4, 1, 3)));
    assert_eq!(m.take_any(), None);
}

#[test]
fn routes_go_down_for_steals_and_unblocks_and_up_for_updates() {
    let t = Tree::new(16, 4);
    assert_eq!(
        route(&t, 0, 1, Action::Steal { victim: 5, stealer_first: 6, k: 2, ends: Some(0) }),
        vec![Route::StealWorker { victim: 5, stealer: 6, k: 2, ends: Some(0) }]
    );
    assert_eq!(
        route(&t, 1, 0, Action::Steal { victim: 2, stealer_first: 4, k: 8, ends: Some(1) }),
        vec![Route::StealPartition { level: 0, part: 2, stealer_first: 4, k: 8, ends: Some(1) }]
    );
    assert_eq!(
        route(&t, 0, 3, Action::Update { count: 7, starving: false, waiting: false, ends: None }),
        vec![Route::Update { level: 1, part: 0, child: 3, count: 7, starving: false, waiting: false, ends: None }]
    );
    assert_eq!(route(&t, 0, 1, Action::Unblock), (4..8).map(Route::UnblockWorker).collect::<Vec<_>>());
    assert_eq!(route(&t, 1, 0, Action::Unblock), (0..4).map(|part| Route::UnblockPartition { level: 0, part }).collect::<Vec<_>>());
}

#[test]
fn decreases_are_reported_at_a_quarter_and_at_underflow() {
    // No underflow: a fall to a quarter, zero left to the starving report.
    assert!(!decrease_due(0, 0, 0));
    assert!(!decrease_due(1, 0, 0), "zero: the starving report says it");
    assert!(!decrease_due(8, 3, 0) && !decrease_due(8, 4, 0));
    assert!(decrease_due(8, 2, 0) && decrease_due(8, 1, 0));
    assert!(!decrease_due(8, 0, 0));
    // Underflow 2: falling below it is reported at once, zero included.
    assert!(decrease_due(2, 1, 2) && decrease_due(2, 0, 2));
    assert!(decrease_due(16, 1, 2) && decrease_due(16, 4, 2) && !decrease_due(16, 5, 2));
    // Already below the underflow when reported: the quarter rule only.
    assert!(!decrease_due(1, 0, 2));
    assert!(decrease_due(7, 1, 8) && !decrease_due(7, 2, 8) && !decrease_due(7, 0, 8));
    // The window is one comparison.
    for reported in 0..40 {
        for u in 0..6 {
            let (lo, span) = decrease_window(reported, u);
            for c in 0..reported + 2 {
                let want = c < reported && ((c >= 1 && c <= reported / DECREASE_FACTOR) || (u > 0 && reported >= u && c < u));
                assert_eq!(c.wrapping_sub(lo) <= span, want, "reported {reported}, underflow {u}, count {c}");
            }
        }
    }
}

#[test]
fn underflow_serves_a_worker_before_it_runs_dry() {
    let t = Tree::single(3);
    // Without underflow a worker with nothing queued but still running is left alone.
    let mut m = ManagerNode::new(&t, 0, 0, 8);
    assert!(m.on_update(&t, 1, 8, false).is_empty());
    assert!(m.on_update(&t, 2, 1, false).is_empty());
    assert!(m.on_update(&t, 2, 0, false).is_empty());
    // With underflow 2 the same worker is sent half the difference at count 1.
    let mut m = ManagerNode::new(&t, 0, 0, 8).with_underflow(2);
    assert!(m.on_update(&t, 0, 0, false).is_empty(), "nobody has tasks to give");
    // Worker 1 reports 8: worker 0 (0 tasks) and worker 2 (not reported
    // yet, believed 0) are both below the underflow; each gets half the
    // difference from what the victim is believed to hold.
    let a = m.on_update(&t, 1, 8, false);
    assert_eq!(
        a,
        vec![Action::Steal { victim: 1, stealer_first: 0, k: 4, ends: Some(0) }, Action::Steal { victim: 1, stealer_first: 2, k: 2, ends: Some(0) }]
    );
    // No request while one is in flight.
    assert!(m.on_update(&t, 0, 1, false).is_empty());
    // Steal over: worker 0 holds 1, below the underflow, and the victim
    // (believed 2) has one to spare for it: 0 more (half of 2 - 1).
    assert!(m.on_stealer_update(&t, 0, 1, false, Some(0)).is_empty());
    // The victim reports 6 left: worker 0, below the underflow, is served again.
    let a = m.on_victim_update(&t, 1, 6);
    assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 0, k: 2, ends: Some(0) }]);
    assert_eq!(steal_amount(5, 1, false), 2);
    assert_eq!(steal_amount(1, 0, true), 1);
    assert_eq!(steal_amount(1, 0, false), 0);
    assert!(wants_work(true, false, 0, 0, 0) && !wants_work(true, true, 0, 0, 0) && !wants_work(false, false, 0, 0, 0));
    assert!(wants_work(false, false, 1, 2, 0) && !wants_work(false, false, 1, 2, 1));
}

#[test]
fn underflow_is_an_option_with_a_clear_error() {
    let p = Policy::parse("adm-central:underflow=3").unwrap();
    assert!(matches!(p.kind, PolicyKind::Adm(Adm { underflow: 3, .. })));
    let p = Policy::parse("adm-hier:underflow=0,radix=4").unwrap();
    assert!(matches!(p.kind, PolicyKind::Adm(Adm { underflow: 0, radix: 4, .. })));
    for bad in ["adm-central:underflow=-1", "adm-central:underflow=x", "adm-hier:underflow=5000"] {
        let e = Policy::parse(bad).unwrap_err().to_string();
        assert!(e.contains("underflow"), "{bad}: {e}");
    }
}

#[test]
fn thresholds_are_exponential() {
    assert_eq!([0, 1, 2, 3, 4, 7, 8].map(next_report_threshold), [1, 2, 4, 4, 8, 8, 16]);
}

#[test]
fn counting_depths_double() {
    assert_eq!(report_depth(1, 5, 100), usize::MAX, "one worker never reports");
    assert_eq!(report_depth(4, 0, 100), 0, "believed empty: count at the next join");
    assert_eq!(report_depth(4, 3, 100), 200);
    assert_eq!(recount_depth(10), 74);
    assert_eq!(recount_depth(1000), 2000);
    assert_eq!(recount_depth(usize::MAX / 2 + 1), usize::MAX);
    assert_eq!(hand_to_idle(true, true), 1);
    assert_eq!(hand_to_idle(true, false) + hand_to_idle(false, true), 0);
}

#[test]
fn handoff_looks_at_its_own_partition_after_itself() {
    let central = Tree::single(20);
    assert_eq!(handoff_candidates(&central, 3).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8, 9, 10, 11], "at most HANDOFF_PROBES");
    assert_eq!(handoff_candidates(&central, 19).take(2).collect::<Vec<_>>(), vec![0, 1], "wraps around");
    assert_eq!(handoff_candidates(&Tree::single(2), 1).collect::<Vec<_>>(), vec![0]);
    assert_eq!(handoff_candidates(&Tree::single(1), 0).count(), 0, "alone: nobody");
    let hier =
        Adm { radix: 4, burst: 8, dedicated_manager: false, notify: Notify::Poll, underflow: 0, handoff: Handoff::Idle, loops: AdmLoops::Split }
            .tree(16);
    assert_eq!(handoff_candidates(&hier, 6).collect::<Vec<_>>(), vec![7, 4, 5], "the other workers of group 4..8");
}

#[test]
fn params_give_the_tree_and_the_hosts() {
    let a = Adm { radix: 4, burst: 8, dedicated_manager: false, notify: Notify::Poll, underflow: 0, handoff: Handoff::Idle, loops: AdmLoops::Split };
    assert_eq!(a.tree(16).levels, 2);
    assert_eq!(a.hosted_managers(16, 0).len(), 2);
    assert_eq!(a.hosted_managers(16, 4).len(), 1);
    assert!(a.hosted_managers(16, 5).is_empty());
    let all = a.all_managers(16);
    assert_eq!((all.len(), all[0].len(), all[1].len()), (2, 4, 1));
    let single = Adm { radix: 0, ..a };
    assert_eq!(single.tree(16), Tree::single(16));
    assert!(Adm { dedicated_manager: true, ..a }.hosted_managers(16, 0).is_empty());
    let p = Policy::parse("adm-central").unwrap();
    assert!(matches!(
        p.kind,
        PolicyKind::Adm(Adm {
            radix: 0,
            burst: 8,
            dedicated_manager: false,
            notify: Notify::Interrupt { bound_us: 100 },
            underflow: DEFAULT_UNDERFLOW,
            handoff: Handoff::Idle,
            loops: AdmLoops::Split
        })
    ));
    assert!(matches!(Policy::parse("adm-hier:handoff=manager").unwrap().kind, PolicyKind::Adm(Adm { handoff: Handoff::Manager, .. })));
    assert!(matches!(Policy::parse("adm-hier:handoff=sleeper").unwrap().kind, PolicyKind::Adm(Adm { handoff: Handoff::Sleeper, .. })));
    assert!(Policy::parse("adm-central:handoff=nobody").unwrap_err().to_string().contains("handoff"));
}

#[test]
fn the_paper_specs_are_table_2_defaults_and_round_trip() {
    let paper = Policy::parse("adm-paper-hier").unwrap();
    assert_eq!(paper.name, "adm-paper-hier");
    let PolicyKind::Adm(a) = paper.kind else { panic!("not ADM") };
    assert_eq!((a.handoff, a.loops, a.radix), (Handoff::Manager, AdmLoops::Range, 8));
    let PolicyKind::Adm(c) = Policy::parse("adm-paper-central").unwrap().kind else { panic!("not ADM") };
    assert_eq!((c.handoff, c.loops, c.radix), (Handoff::Manager, AdmLoops::Range, 0));
    // The runtime's defaults, the paper's, and one option of the paper's
    // alone are three different specs with three different labels.
    let labels: Vec<String> =
        ["adm-hier", "adm-paper-hier", "adm-hier:handoff=manager"].iter().map(|s| Policy::parse(s).unwrap().canonical()).collect();
    assert_eq!(labels.iter().collect::<std::collections::BTreeSet<_>>().len(), 3, "{labels:?}");
    for l in &labels {
        assert_eq!(&Policy::parse(l).unwrap().canonical(), l);
    }
    // Every option can still be set away from the paper's default.
    let PolicyKind::Adm(d) = Policy::parse("adm-paper-hier:loops=split,handoff=idle").unwrap().kind else { panic!("not ADM") };
    assert_eq!((d.handoff, d.loops), (Handoff::Idle, AdmLoops::Split));
}
