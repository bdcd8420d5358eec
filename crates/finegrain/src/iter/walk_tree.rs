//! `walk_tree_prefix`, `walk_tree_postfix`, `walk_tree`: every node of a tree
//! given by its root and a function from a node to its children, in prefix
//! order (a node before its children), postfix order (after them), or any
//! order. Unindexed: a part is a run of sibling subtrees, halved between
//! siblings; a part of one subtree first visits its root to reach the
//! children.

use super::bridge::bridge_unindexed;
use super::par_iter::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};
use std::collections::VecDeque;

/// Every node under `root`, each before its children.
pub fn walk_tree_prefix<S: Send, B, I>(root: S, children_of: B) -> WalkTree<S, B, true>
where
    B: Fn(&S) -> I + Sync + Send,
    I: IntoIterator<Item = S>,
{
    WalkTree { root, children_of }
}

/// Every node under `root`, each after its children.
pub fn walk_tree_postfix<S: Send, B, I>(root: S, children_of: B) -> WalkTree<S, B, false>
where
    B: Fn(&S) -> I + Sync + Send,
    I: IntoIterator<Item = S>,
{
    WalkTree { root, children_of }
}

/// Every node under `root`, in no promised order (prefix, here).
pub fn walk_tree<S: Send, B, I>(root: S, children_of: B) -> WalkTree<S, B, true>
where
    B: Fn(&S) -> I + Sync + Send,
    I: IntoIterator<Item = S>,
{
    walk_tree_prefix(root, children_of)
}

/// The walks' iterator (`PREFIX`: a node before its children).
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct WalkTree<S, B, const PREFIX: bool> {
    root: S,
    children_of: B,
}

impl<S: Send, B, I, const PREFIX: bool> ParallelIterator for WalkTree<S, B, PREFIX>
where
    B: Fn(&S) -> I + Sync + Send,
    I: IntoIterator<Item = S>,
{
    type Item = S;
    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let part = Part::<S, B, PREFIX> { before: VecDeque::new(), roots: vec![self.root], after: VecDeque::new(), children_of: &self.children_of };
        bridge_unindexed(part, consumer)
    }
}

/// `before`, then the subtrees of `roots` in order, then `after`: the
/// ancestors already visited (prefix) or still to visit (postfix).
struct Part<'b, S, B, const PREFIX: bool> {
    before: VecDeque<S>,
    roots: Vec<S>,
    after: VecDeque<S>,
    children_of: &'b B,
}

impl<S: Send, B, I, const PREFIX: bool> UnindexedProducer for Part<'_, S, B, PREFIX>
where
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;
    fn split(mut self) -> (Self, Option<Self>) {
        // One subtree: step into it, so there are siblings to share.
        if self.roots.len() == 1 {
            let node = self.roots.pop().expect("one root");
            self.roots = (self.children_of)(&node).into_iter().collect();
            if PREFIX {
                self.before.push_back(node);
            } else {
                self.after.push_front(node);
            }
        }
        if self.roots.len() < 2 {
            return (self, None);
        }
        let right_roots = self.roots.split_off(self.roots.len() / 2);
        let right = Part { before: VecDeque::new(), roots: right_roots, after: std::mem::take(&mut self.after), children_of: self.children_of };
        (self, Some(right))
    }
    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        folder = folder.consume_iter(self.before);
        // Depth first, with an explicit stack (trees may be deep): in
        // postfix order a node is pushed back, marked, under its children.
        let mut stack: Vec<(S, bool)> = self.roots.into_iter().rev().map(|s| (s, false)).collect();
        while let Some((node, expanded)) = stack.pop() {
            if folder.full() {
                return folder;
            }
            if expanded {
                folder = folder.consume(node);
                continue;
            }
            let children: Vec<S> = (self.children_of)(&node).into_iter().collect();
            if PREFIX {
                folder = folder.consume(node);
            } else {
                stack.push((node, true));
            }
            stack.extend(children.into_iter().rev().map(|c| (c, false)));
        }
        folder.consume_iter(self.after)
    }
}
