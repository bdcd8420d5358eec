use super::*;

#[test]
fn split_text_never_cuts_a_word_and_loses_nothing() {
    let text = b"alpha beta  gamma\ndelta epsilon zeta eta theta";
    for size in [1, 3, 7, 100] {
        let pieces = split_text(text, size);
        assert_eq!(pieces.concat(), text.to_vec(), "size {size}");
        for p in &pieces[..pieces.len() - 1] {
            assert!(p.last().unwrap().is_ascii_whitespace(), "size {size}: {p:?}");
        }
    }
    assert!(split_text(b"", 4).is_empty());
    assert_eq!(split_text(b"oneword", 2), vec![&b"oneword"[..]]);
}

#[test]
fn dense_merge_combines_every_worker_and_the_job_is_reusable() {
    let data: Vec<u32> = (0..10_000).map(|i| (i * 7919) % 1000).collect();
    let pool = crate::Pool::new(3, "ws").unwrap();
    let mut job = MapReduce::dense(1000);
    for _ in 0..3 {
        let got = pool.install(|| job.run(&split_slice(&data, 97), |c: &&[u32], out| c.iter().for_each(|&x| out.emit(x as usize, 1u64)), |a, b| *a += b));
        assert_eq!(got.len(), 1000);
        assert!(got.iter().all(|&(_, n)| n == 10));
        assert_eq!(job.last_run().map_tasks, data.len().div_ceil(97) as u64);
    }
}

#[test]
#[should_panic(expected = "dense container of 4 keys")]
fn a_key_outside_a_dense_container_is_a_clear_panic() {
    let mut job = MapReduce::dense(4);
    job.run(&[(0usize, 1usize)], |_, out| out.emit(4, 1u8), |a, b| *a += b);
}
