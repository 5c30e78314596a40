//! The call graph of a module: each function's callees and callers among the module's
//! functions (runtime functions, `memset` and `memcpy` are not nodes), and its strongly connected
//! components by Tarjan's algorithm with an explicit stack, listed bottom-up (callees
//! before callers); and the calls of each function, each by its caller and instruction
//! (`call_sites`). Needs only the module; linear in its size.

use crate::ir::{FuncId, Inst, Module};

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct CallGraph {
    /// Callees of each function, without repeats, in the order of their first call in the
    /// layout.
    callees: Vec<Vec<FuncId>>,
    /// Callers of each function, without repeats, by ascending id.
    callers: Vec<Vec<FuncId>>,
    /// Components, callees' before callers'; each one's functions by ascending id.
    sccs: Vec<Vec<FuncId>>,
    scc_of: Vec<u32>,
    recursive: Vec<bool>,
}

impl CallGraph {
    pub fn new(m: &Module) -> CallGraph {
        let count = m.functions.len();
        let mut callees: Vec<Vec<FuncId>> = (0..count).map(|_| Vec::new()).collect();
        let mut callers: Vec<Vec<FuncId>> = (0..count).map(|_| Vec::new()).collect();
        // The last caller that listed each function as a callee.
        let mut listed_by = vec![NONE; count];
        for caller in m.function_ids() {
            for (_, g) in m.function(caller).calls() {
                if listed_by[g.index()] != caller.0 {
                    listed_by[g.index()] = caller.0;
                    callees[caller.index()].push(g);
                    callers[g.index()].push(caller);
                }
            }
        }
        let (sccs, scc_of) = tarjan(&callees);
        let recursive = (0..count)
            .map(|f| sccs[scc_of[f] as usize].len() > 1 || callees[f].contains(&FuncId(f as u32)))
            .collect();
        CallGraph {
            callees,
            callers,
            sccs,
            scc_of,
            recursive,
        }
    }

    pub fn callees(&self, f: FuncId) -> &[FuncId] {
        &self.callees[f.index()]
    }

    pub fn callers(&self, f: FuncId) -> &[FuncId] {
        &self.callers[f.index()]
    }

    /// The strongly connected components, bottom-up: a component comes after every
    /// component it calls into.
    pub fn sccs(&self) -> &[Vec<FuncId>] {
        &self.sccs
    }

    /// The index in `sccs()` of the component holding `f`.
    pub fn scc_of(&self, f: FuncId) -> usize {
        self.scc_of[f.index()] as usize
    }

    /// Whether `f` can call itself, directly or through other functions.
    pub fn is_recursive(&self, f: FuncId) -> bool {
        self.recursive[f.index()]
    }
}

/// Tarjan's strongly connected components, iteratively; components come out in reverse
/// topological order of the condensation, which is callees first.
fn tarjan(callees: &[Vec<FuncId>]) -> (Vec<Vec<FuncId>>, Vec<u32>) {
    let count = callees.len();
    let mut index = vec![NONE; count];
    let mut low = vec![0u32; count];
    let mut on_stack = vec![false; count];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut sccs: Vec<Vec<FuncId>> = Vec::new();
    let mut scc_of = vec![NONE; count];
    let mut counter = 0u32;
    let mut enter = |v: u32, index: &mut [u32], low: &mut [u32], stack: &mut Vec<u32>| {
        index[v as usize] = counter;
        low[v as usize] = counter;
        counter += 1;
        stack.push(v);
    };
    for root in 0..count as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        enter(root, &mut index, &mut low, &mut stack);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some((v, next)) = calls.last_mut() {
            let v = *v;
            if let Some(&w) = callees[v as usize].get(*next) {
                *next += 1;
                let w = w.0;
                if index[w as usize] == NONE {
                    enter(w, &mut index, &mut low, &mut stack);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    scc_of[w as usize] = sccs.len() as u32;
                    scc.push(FuncId(w));
                    if w == v {
                        break;
                    }
                }
                scc.sort_unstable();
                sccs.push(scc);
            }
        }
    }
    (sccs, scc_of)
}

/// For each function, the calls of it: (caller, call instruction).
pub fn call_sites(m: &Module) -> Vec<Vec<(FuncId, Inst)>> {
    let mut sites = vec![Vec::new(); m.functions.len()];
    for caller in m.function_ids() {
        for (i, g) in m.function(caller).calls() {
            sites[g.index()].push((caller, i));
        }
    }
    sites
}
