//! A recorded task space survives the trace file: every hint round-trips
//! through `finegrain_sim::trace` with its tasks.

use finegrain::record;
use finegrain::taskgraph::{Meta, SpaceHint};
use finegrain_sim::trace::format::{decode, encode};

#[test]
fn recorded_task_spaces_round_trip_through_the_trace_format() {
    let data = vec![0u8; 64 * 64];
    let sigs: Vec<_> = (0..12u64).map(|i| [i * 977; 16]).collect();
    let map = |[i, j, _]: [usize; 3]| (i * j) as u64;
    let meta = Meta::synthetic("spaces", "test", 0);
    let (_, g) = record::record(meta, || {
        let body = |[i, j, _]: [usize; 3]| record::read(&data[64 * (i + 4 * j)..64 * (i + 4 * j) + 64]);
        finegrain::TaskSpace::new([4, 3]).run(body).unwrap();
        finegrain::TaskSpace::new([4, 3]).random(7).run(body).unwrap();
        finegrain::TaskSpace::new([4, 3]).flux([4, 1, 0]).run(body).unwrap();
        finegrain::TaskSpace::new([4, 3]).bins(&map, 0, 6).run(body).unwrap();
        finegrain::TaskSpace::new([4, 3]).signatures(&sigs).run(body).unwrap();
    })
    .unwrap();
    assert_eq!(g.spaces.len(), 5);
    assert!(matches!(&g.spaces[3].hint, SpaceHint::Bins { keys, .. } if keys[11] == 6));
    let back = decode(&encode(&g)).unwrap();
    assert_eq!(back, g);
    // A record the graph rejects is an error on writing, not a bad file.
    let mut bad = g.clone();
    bad.spaces[4].hint = SpaceHint::Signatures(sigs[..5].to_vec());
    let e = finegrain_sim::trace::write_trace(&bad, Vec::new()).unwrap_err().to_string();
    assert!(e.contains("5 signatures for 12 tasks"), "{e}");
}
