//! Dataflow graphs from C, over `finegrain::Graph`: a node runs once all its
//! predecessors have finished; running nodes may add nodes and edges.

use crate::status::*;
use finegrain::{Graph, GraphCtx, NodeId};
use std::ffi::c_void;

/// A dataflow graph under construction. Opaque: made by `fg_graph_new`,
/// freed by `fg_graph_destroy`.
///
/// Thread safety: building a graph (`fg_graph_add_node`, `fg_graph_add_edge`,
/// `fg_graph_run`) is for one thread at a time.
#[allow(missing_debug_implementations)]
pub struct fg_graph {
    graph: Option<Graph<'static>>,
}

/// A running node's view of its graph, for `fg_graph_ctx_add_node` and
/// `fg_graph_ctx_add_edge`. Opaque; valid until the node returns.
#[derive(Debug)]
pub struct fg_graph_ctx(());

/// A node's body: runs once, after its predecessors.
pub type fg_node_fn = Option<unsafe extern "C" fn(graph: *mut fg_graph_ctx, ctx: *mut c_void)>;

type NodeFn = unsafe extern "C" fn(*mut fg_graph_ctx, *mut c_void);

/// A node body as the graph stores it.
fn node(body: NodeFn, ctx: Ctx) -> impl for<'r> FnOnce(&GraphCtx<'r, 'static>) + Send + 'static {
    // SAFETY: the C node with its own context (caller's contract); the
    // handle is valid while it runs.
    move |gc| unsafe { body(gc as *const GraphCtx<'_, 'static> as *mut fg_graph_ctx, ctx.get()) }
}

/// Make an empty graph in `*out`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_new(out: *mut *mut fg_graph) -> fg_status {
    guard("fg_graph_new", || {
        non_null(out, "fg_graph_new", "out")?;
        let g = Box::new(fg_graph { graph: Some(Graph::new()) });
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = Box::into_raw(g) };
        Ok(())
    })
}

/// Free a graph (run or not). NULL is ignored.
///
/// # Safety
/// `graph` is NULL or from `fg_graph_new`, not freed before.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_destroy(graph: *mut fg_graph) -> fg_status {
    guard("fg_graph_destroy", || {
        if !graph.is_null() {
            // SAFETY: made by `Box::into_raw` in `fg_graph_new` (caller's contract).
            drop(unsafe { Box::from_raw(graph) });
        }
        Ok(())
    })
}

/// The graph behind `g`, if it has not run yet.
///
/// # Safety
/// `g` is NULL or a live graph.
unsafe fn building<'a>(g: *mut fg_graph, func: &str) -> Result<&'a mut Graph<'static>, Failure> {
    non_null(g, func, "graph")?;
    // SAFETY: a live graph used by one thread (caller's contract).
    match unsafe { &mut (*g).graph } {
        Some(g) => Ok(g),
        None => fail(FG_ERR_STATE, format!("{func}: the graph has run already")),
    }
}

/// Add a node running `body(ctx_of_graph, ctx)`; its id (0, 1, 2, ... in
/// order of addition) goes to `*id` if `id` is not NULL.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_STATE` (the graph has run).
///
/// # Safety
/// `graph` is NULL or live; `id` is NULL or valid for a write; `body`
/// runs on any worker with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_add_node(graph: *mut fg_graph, body: fg_node_fn, ctx: *mut c_void, id: *mut usize) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_graph_add_node", || {
        // SAFETY: caller's contract.
        let g = unsafe { building(graph, "fg_graph_add_node") }?;
        let f = callback(body, "fg_graph_add_node", "body")?;
        let n = g.add_node(node(f, ctx));
        if !id.is_null() {
            // SAFETY: non-null, valid for a write (caller's contract).
            unsafe { *id = n.0 };
        }
        Ok(())
    })
}

/// Node `to` runs after node `from` has finished.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_NODE` (no such node), `FG_ERR_CYCLE`
/// (`from == to`), `FG_ERR_STATE` (the graph has run).
///
/// # Safety
/// `graph` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_add_edge(graph: *mut fg_graph, from: usize, to: usize) -> fg_status {
    guard("fg_graph_add_edge", || {
        // SAFETY: caller's contract.
        let g = unsafe { building(graph, "fg_graph_add_edge") }?;
        g.add_edge(NodeId(from), NodeId(to)).map_err(|e| Failure::from(e).prefixed("fg_graph_add_edge"))
    })
}

/// Run every node, respecting the edges, in the pool the caller runs in
/// (or the global pool); return when all have run. A graph runs once.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_CYCLE` (nothing ran), `FG_ERR_STATE`
/// (run already), `FG_ERR_PANIC`.
///
/// # Safety
/// `graph` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_run(graph: *mut fg_graph) -> fg_status {
    guard("fg_graph_run", || {
        non_null(graph, "fg_graph_run", "graph")?;
        // SAFETY: a live graph used by one thread (caller's contract).
        let Some(g) = (unsafe { (*graph).graph.take() }) else {
            return fail(FG_ERR_STATE, "fg_graph_run: the graph has run already");
        };
        g.run().map_err(|e| Failure::from(e).prefixed("fg_graph_run"))
    })
}

/// The running node's graph behind `gc`.
///
/// # Safety
/// `gc` is NULL or the handle of a running node.
unsafe fn running<'a>(gc: *mut fg_graph_ctx, func: &str) -> Result<&'a GraphCtx<'a, 'static>, Failure> {
    non_null(gc, func, "graph")?;
    // SAFETY: caller's contract.
    Ok(unsafe { &*(gc as *const GraphCtx<'a, 'static>) })
}

/// From a running node: add a node that runs after this node returns and
/// after every predecessor given to it with `fg_graph_ctx_add_edge`; its id
/// goes to `*id` if `id` is not NULL.
///
/// # Safety
/// `graph` is NULL or the handle given to the running node; `id` is NULL
/// or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_ctx_add_node(graph: *mut fg_graph_ctx, body: fg_node_fn, ctx: *mut c_void, id: *mut usize) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_graph_ctx_add_node", || {
        // SAFETY: caller's contract.
        let gc = unsafe { running(graph, "fg_graph_ctx_add_node") }?;
        let f = callback(body, "fg_graph_ctx_add_node", "body")?;
        let n = gc.add_node(node(f, ctx));
        if !id.is_null() {
            // SAFETY: non-null, valid for a write (caller's contract).
            unsafe { *id = n.0 };
        }
        Ok(())
    })
}

/// From a running node: `to` (a node this node added) runs after `from`
/// (any node) has finished.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_NODE` (`to` not added by this node, or
/// `from` not older than `to`).
///
/// # Safety
/// `graph` is NULL or the handle given to the running node.
#[no_mangle]
pub unsafe extern "C" fn fg_graph_ctx_add_edge(graph: *mut fg_graph_ctx, from: usize, to: usize) -> fg_status {
    guard("fg_graph_ctx_add_edge", || {
        // SAFETY: caller's contract.
        let gc = unsafe { running(graph, "fg_graph_ctx_add_edge") }?;
        gc.add_edge(NodeId(from), NodeId(to)).map_err(|e| Failure::from(e).prefixed("fg_graph_ctx_add_edge"))
    })
}
