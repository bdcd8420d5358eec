//! loom models of the mailbox: delivery and per-sender order, with the ring
//! shrunk to 2 slots so that overflow is exercised.

use super::{Mailbox, Msg, MsgKind};
use loom::sync::Arc;
use loom::thread;

use crate::loom_model::model;

#[test]
fn loom_mailbox_two_senders_keep_order_and_deliver_all() {
    model(Some(2), || {
        let mb = Arc::new(Mailbox::new());
        let senders: Vec<_> = (0..2)
            .map(|s| {
                let mb = Arc::clone(&mb);
                thread::spawn(move || {
                    for i in 0..2 {
                        mb.send(Msg::new(MsgKind::Update, s, &[i]));
                    }
                })
            })
            .collect();
        let mut next = [0usize; 2];
        let mut got = 0;
        while got < 4 {
            mb.begin_drain();
            match mb.recv() {
                Some(m) => {
                    let s = m.src as usize;
                    assert_eq!(m.words[0], next[s], "per-sender order");
                    next[s] += 1;
                    got += 1;
                }
                None => thread::yield_now(),
            }
        }
        for h in senders {
            h.join().unwrap();
        }
        assert!(mb.recv().is_none());
    });
}

#[test]
fn loom_mailbox_signal_is_never_lost() {
    // A receiver that drained and saw nothing must see the signal of a message
    // sent concurrently (otherwise it could park on a non-empty mailbox).
    model(Some(3), || {
        let mb = Arc::new(Mailbox::new());
        let m2 = Arc::clone(&mb);
        let t = thread::spawn(move || m2.send(Msg::new(MsgKind::Task, 1, &[7])));
        mb.begin_drain();
        let first = mb.recv();
        t.join().unwrap();
        if first.is_none() {
            assert!(mb.has_mail(), "a message was sent but the signal is down");
            mb.begin_drain();
            let mut m = None;
            while m.is_none() {
                m = mb.recv();
            }
            assert_eq!(m.unwrap().words[0], 7);
        }
    });
}
