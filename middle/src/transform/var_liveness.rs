//! Liveness of one stack variable on entry to blocks, answered on demand for mem2reg's
//! pruned phi placement. The variable is live on entry to a block when some path from the
//! block's start reaches a load of it before any store to it.
//!
//! A query searches forward from the block and remembers what it learns: a search that finds
//! nothing proves every block it visited dead, one that finds a load proves the blocks on
//! its path live. When a block that starts by storing the variable dominates every load, the
//! variable is dead wherever that block does not dominate (a path from there to a load must
//! pass the store first), which confines the searches to its dominator subtree. Queries thus
//! cost about the blocks between a phi candidate and the nearest access, not the variable's
//! whole live range: a loop counter live across thousands of nested loops costs little.
//!
//! Marks are stamped per variable and per search, so starting a variable costs nothing.

use crate::analysis::{Cfg, DomTree};
use crate::ir::Block;

/// How a block first touches the variable.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Live,
    Dead,
}

pub struct VarLiveness<'a> {
    cfg: &'a Cfg,
    dom: &'a DomTree,
    /// `(variable stamp, position, access)` of the first access in each block.
    first: Vec<(u32, u32, Access)>,
    /// `(variable stamp, state)` of blocks whose liveness is known.
    known: Vec<(u32, State)>,
    /// The search that last visited each block.
    searched: Vec<u32>,
    var_stamp: u32,
    search_stamp: u32,
    /// A block starting with a store that dominates every load, if there is one.
    scope: Option<Block>,
    stack: Vec<(Block, usize)>,
    visited: Vec<Block>,
}

impl<'a> VarLiveness<'a> {
    pub fn new(cfg: &'a Cfg, dom: &'a DomTree, capacity: usize) -> Self {
        VarLiveness {
            cfg,
            dom,
            first: vec![(0, 0, Access::Load); capacity],
            known: vec![(0, State::Dead); capacity],
            searched: vec![0; capacity],
            var_stamp: 0,
            search_stamp: 0,
            scope: None,
            stack: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// Starts answering for a new variable, given every access to it: its block, its
    /// position within the block, and what it does.
    pub fn reset(&mut self, accesses: &[(Block, u32, Access)]) {
        self.var_stamp += 1;
        let stamp = self.var_stamp;
        for &(b, pos, access) in accesses {
            let first = &mut self.first[b.index()];
            if first.0 != stamp || pos < first.1 {
                *first = (stamp, pos, access);
            }
        }
        let dom = self.dom;
        let reachable = accesses.iter().filter(|a| dom.is_reachable(a.0));
        let scope = reachable
            .clone()
            .filter(|a| self.first_access(a.0) == Some(Access::Store))
            .min_by_key(|a| dom.level(a.0))
            .map(|a| a.0);
        self.scope = scope.filter(|&d| {
            reachable
                .clone()
                .all(|a| a.2 == Access::Store || dom.dominates(d, a.0))
        });
    }

    fn first_access(&self, b: Block) -> Option<Access> {
        let (stamp, _, access) = self.first[b.index()];
        (stamp == self.var_stamp).then_some(access)
    }

    /// What is known without searching.
    fn known(&self, b: Block) -> Option<bool> {
        if let Some(access) = self.first_access(b) {
            return Some(access == Access::Load);
        }
        if self.scope.is_some_and(|d| !self.dom.dominates(d, b)) {
            return Some(false);
        }
        let (stamp, state) = self.known[b.index()];
        (stamp == self.var_stamp).then_some(state == State::Live)
    }

    /// Whether the variable is live on entry to `b`, a reachable block.
    pub fn live_in(&mut self, b: Block) -> bool {
        if let Some(live) = self.known(b) {
            return live;
        }
        self.search_stamp += 1;
        let search = self.search_stamp;
        self.searched[b.index()] = search;
        self.visited.clear();
        self.visited.push(b);
        self.stack.clear();
        self.stack.push((b, 0));
        let mut found = false;
        while let Some((node, next)) = self.stack.last_mut() {
            let Some(&succ) = self.cfg.succs(*node).get(*next) else {
                self.stack.pop();
                continue;
            };
            *next += 1;
            match self.known(succ) {
                Some(true) => {
                    found = true;
                    break;
                }
                Some(false) => {}
                None if self.searched[succ.index()] == search => {}
                None => {
                    self.searched[succ.index()] = search;
                    self.visited.push(succ);
                    self.stack.push((succ, 0));
                }
            }
        }
        let stamp = self.var_stamp;
        if found {
            for &(node, _) in &self.stack {
                self.known[node.index()] = (stamp, State::Live);
            }
        } else {
            for &node in &self.visited {
                self.known[node.index()] = (stamp, State::Dead);
            }
        }
        found
    }
}
