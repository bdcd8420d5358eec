//! A contended resource: a cache bank, a DRAM channel, Carbon's task unit,
//! an ADM manager.
//!
//! The engine issues requests in *nearly* increasing time: one core's task
//! may run a few hundred accesses ahead of another core's clock. A plain
//! FIFO `busy_until` would then make a request that arrives "earlier" in
//! simulated time wait behind ones booked later. So a `Server` is a
//! **time-bucketed capacity model**: time is cut into windows of `W` cycles
//! (64 by default), and each window remembers up to which cycle it is busy.
//! A request at time `now` takes the first window at or after `now`'s that
//! is not busy to its end; it starts at `max(now, that window's busy end)`,
//! and its service makes the window busy up to the request's end, the part
//! past the window's end adding to the following windows' busy time. For
//! requests in increasing time this is exactly a FIFO server; a request that
//! arrives out of order waits only for the work booked in its own window,
//! not behind work booked later; and no window ever holds more than `W`
//! cycles of service, so the capacity holds.
//!
//! The windows form a ring that slides forward with the latest request:
//! it keeps [`Server::HISTORY`] windows behind the newest one seen, and a
//! request older than that is served at once (it cannot be queued behind
//! work that was forgotten). The ring's memory is bounded by that history
//! plus the backlog ahead, itself capped at [`Server::MAX_AHEAD`] windows.

#[derive(Clone, Debug)]
pub struct Server {
    shift: u32,
    /// Window number of the oldest window kept.
    base: u64,
    /// Windows kept, from `base` on.
    len: usize,
    /// Per kept window `w`, at `ring[w & (ring.len() - 1)]` (a power of
    /// two, at least `len`): the cycles of service booked in it, and 0 or
    /// `k` when this window and the `k - 1` after it are all full (a window
    /// never empties while it is kept, so a request skips a booked-out
    /// backlog in a few hops: a union-find with path compression over "the
    /// first window not full").
    ring: Vec<[u32; 2]>,
    /// The newest request's window.
    newest: u64,
    requests: u64,
    waited: u64,
}

impl Default for Server {
    fn default() -> Self {
        Server::new()
    }
}

impl Server {
    /// Windows kept behind the newest request's (with 64-cycle windows, 65 536 cycles).
    pub const HISTORY: u64 = 1024;
    /// Windows of backlog ahead of the newest request at most.
    pub const MAX_AHEAD: u64 = 1 << 16;

    /// A server with 64-cycle windows.
    pub fn new() -> Server {
        Server::with_window(64)
    }

    /// A server with windows of `window` cycles (rounded up to a power of two).
    pub fn with_window(window: u64) -> Server {
        let w = window.max(1).next_power_of_two();
        Server { shift: w.trailing_zeros(), base: 0, len: 0, ring: Vec::new(), newest: 0, requests: 0, waited: 0 }
    }

    fn window(&self) -> u64 {
        1 << self.shift
    }

    /// The slot of kept window `base + i`.
    #[inline]
    fn at(&self, i: usize) -> usize {
        (self.base as usize).wrapping_add(i) & (self.ring.len() - 1)
    }

    /// Keeps windows up to `base + i` (new ones empty).
    #[inline(always)]
    fn extend_to(&mut self, i: usize) {
        if i >= self.len {
            self.extend_slow(i);
        }
    }

    #[inline(never)]
    fn extend_slow(&mut self, i: usize) {
        if i >= self.ring.len() {
            // Grow, keeping each window at its own slot.
            let cap = (i + 1).next_power_of_two().max(2 * Self::HISTORY as usize);
            let mut ring = vec![[0u32; 2]; cap];
            for k in 0..self.len {
                ring[(self.base as usize).wrapping_add(k) & (cap - 1)] = self.ring[self.at(k)];
            }
            self.ring = ring;
        }
        let mask = self.ring.len() - 1;
        let from = (self.base as usize).wrapping_add(self.len) & mask;
        let n = i + 1 - self.len;
        if n <= 8 {
            // Usually a few: one by one (a call of `memset` costs more).
            for k in 0..n {
                self.ring[(from + k) & mask] = [0, 0];
            }
        } else {
            // In at most two runs (the ring wraps).
            let first = n.min(self.ring.len() - from);
            self.ring[from..from + first].fill([0, 0]);
            self.ring[..n - first].fill([0, 0]);
        }
        self.len = i + 1;
    }

    /// Asks the host to bring the window of a request at `now` into its
    /// cache (a hint: it changes nothing but timing).
    #[inline]
    pub fn prefetch(&self, now: u64) {
        let w = now >> self.shift;
        if w >= self.base && !self.ring.is_empty() {
            super::host::prefetch(&self.ring[(w as usize) & (self.ring.len() - 1)]);
        }
    }

    /// Books a request arriving at `now` that keeps the server busy for
    /// `service` cycles; returns the time it starts (`>= now`).
    pub fn serve(&mut self, now: u64, service: u64) -> u64 {
        self.requests += 1;
        if service == 0 {
            return now;
        }
        let w = now >> self.shift;
        if w > self.newest {
            self.newest = w;
            let keep_from = w.saturating_sub(Self::HISTORY);
            if keep_from > self.base {
                let drop = (keep_from - self.base).min(self.len as u64) as usize;
                self.len -= drop;
                self.base = keep_from;
            }
        }
        if w < self.base {
            return now;
        }
        let cap = self.window() as u32;
        // The first window at or after w with room.
        let limit = (self.newest - self.base + Self::MAX_AHEAD) as usize;
        let i = self.first_not_full((w - self.base) as usize, cap).min(limit - 1);
        self.extend_to(i);
        let wstart = (self.base + i as u64) << self.shift;
        let slot = self.at(i);
        let start = now.max(wstart + self.ring[slot][0] as u64);
        // The window is busy up to the request's end; what passes the
        // window's end carries into the next ones.
        let end = start - wstart + service;
        self.ring[slot][0] = end.min(cap as u64) as u32;
        let mut carry = end.saturating_sub(cap as u64);
        let mut j = i + 1;
        while carry > 0 && j < limit {
            self.extend_to(j);
            let slot = self.at(j);
            let total = self.ring[slot][0] as u64 + carry;
            self.ring[slot][0] = total.min(cap as u64) as u32;
            carry = total.saturating_sub(cap as u64);
            j += 1;
        }
        self.waited += start - now;
        start
    }

    /// The first kept window at or after `i` (an offset from `base`) that is
    /// not full, or the first one past those kept (empty); compresses the
    /// path it walked.
    #[inline]
    fn first_not_full(&mut self, i: usize, cap: u32) -> usize {
        let mut j = i;
        while j < self.len && self.ring[self.at(j)][0] >= cap {
            j += (self.ring[self.at(j)][1] as usize).max(1);
        }
        // Every window in i..j is full: point the walked ones at j.
        let mut k = i;
        while k < j && k < self.len {
            let slot = self.at(k);
            let next = k + (self.ring[slot][1] as usize).max(1);
            self.ring[slot][1] = (j - k).min(u32::MAX as usize) as u32;
            k = next;
        }
        j
    }

    /// Requests served.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Cycles requests waited in all.
    pub fn waited(&self) -> u64 {
        self.waited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_fifo() {
        let mut s = Server::new();
        for k in 0..200 {
            assert_eq!(s.serve(1000, 3), 1000 + 3 * k);
        }
    }

    #[test]
    fn in_order_spaced_requests_do_not_wait() {
        let mut s = Server::new();
        for k in 0..1000u64 {
            assert_eq!(s.serve(10 * k, 10), 10 * k);
        }
        assert_eq!(s.waited(), 0);
    }

    #[test]
    fn an_earlier_arrival_does_not_wait_behind_later_ones() {
        let mut s = Server::new();
        // 100 requests booked at time 10_000.. keep the server busy there.
        for _ in 0..100 {
            s.serve(10_000, 10);
        }
        // One that arrives (later in issue order) at time 9_000 starts at once.
        assert_eq!(s.serve(9_000, 10), 9_000);
        // And a burst at 9_000 queues only among itself.
        assert_eq!(s.serve(9_000, 10), 9_010);
    }

    #[test]
    fn capacity_holds_under_saturation() {
        let mut s = Server::new();
        let mut last = 0;
        for _ in 0..10_000 {
            last = s.serve(0, 1);
        }
        assert_eq!(last, 9_999);
        // Service longer than a window carries over.
        let mut t = Server::new();
        assert_eq!(t.serve(0, 280), 0);
        assert_eq!(t.serve(0, 280), 280);
        assert_eq!(t.serve(0, 10), 560);
    }

    #[test]
    fn old_requests_pass_and_memory_stays_bounded() {
        let mut s = Server::new();
        for k in 0..100_000u64 {
            s.serve(k * 1000, 5);
        }
        assert!(s.len as u64 <= Server::HISTORY + 2, "{}", s.len);
        assert!(s.ring.len() as u64 <= 2 * Server::HISTORY, "{}", s.ring.len());
        // Far older than the history: served at once.
        assert_eq!(s.serve(5, 1_000_000), 5);
    }

    #[test]
    fn deterministic() {
        let run = || {
            let mut s = Server::new();
            let mut x = 12345u64;
            (0..5000)
                .map(|k| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    s.serve(k * 4 + x % 300, 1 + x % 7)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }
}
