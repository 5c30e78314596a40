//! Loop-invariant code motion: an instruction whose operands do not change inside a loop
//! moves to the loop's preheader, as far out as it stays invariant, so it runs once per
//! entry of the loop instead of once per iteration.
//!
//! - Pure instructions (not pinned by the opcode table) always move: none of them traps
//!   (division by zero is defined), so running one when the loop body would not have is
//!   only work. This brings out the address arithmetic that loads below depend on; `gcm`
//!   places pure code finally.
//! - A load moves when nothing in the loop may write its location: no store that may
//!   alias it and no call that may write it (`analysis::alias`). It must also be safe to
//!   run when the original would not have: either it reads inside a global or an `alloca`
//!   at a known offset, or its block dominates every block that leaves the loop, so the
//!   loop runs it before any way out, or a load or store through the same address runs
//!   before every entry to the loop (`s[i]` read before an inner loop that reads it again
//!   in one arm).
//! - A call of a pure function (no visible memory access, no I/O, always returns) with
//!   invariant arguments moves when its block dominates every block that leaves the loop:
//!   it gives the same result each time, and the loop ran it at least once anyway.
//! - A store of an invariant value to an invariant address moves when its block dominates
//!   every block that leaves the loop and nothing else in the loop may touch its location:
//!   no other store, no load and no call that may read or write it. Storing once before the
//!   loop then leaves memory as the loop's first store would, and nothing looks in between.
//!
//! Blocks are visited in reverse post-order, so an instruction's operands have already
//! moved when it is considered. Each loop's memory accesses (its own and its inner loops')
//! are listed once; a loop with more than `MAX_ACCESSES` of them moves no memory access.
//!
//! Needs: the CFG, the dominator tree, the loop forest, the module facts. Preserves:
//! behaviour and the CFG.

use crate::analysis::alias::Location;
use crate::analysis::alias::{call_may_read, call_may_write, is_in_bounds, locate, may_alias_in};
use crate::analysis::{DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{Block, Callee, FuncId, Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;
use crate::transform::loop_accesses::loop_accesses;
use crate::transform::pinned::is_pinned;

/// Loops with more memory accesses than this keep all of them in place: checking each
/// candidate against every access would cost their product.
const MAX_ACCESSES: usize = 256;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    if loops.loops.is_empty() {
        return Preserved::All;
    }
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let accesses = list_accesses(f, &loops);
    let licm = Licm {
        loops: &loops,
        dom: &dom,
        facts,
        func: cx.id,
        accesses: &accesses,
    };
    let mut changed = false;
    for &b in cfg.rpo() {
        let Some(inner) = loops.innermost(b) else {
            continue;
        };
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            let Some(k) = licm.destination(f, b, inner, i) else {
                continue;
            };
            let pre = loops.loops[k]
                .preheader
                .expect("destinations have preheaders");
            let end = f.terminator(pre).expect("a preheader ends in a jump");
            f.move_inst_before(i, end);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

/// A memory access inside a loop.
#[derive(Clone, Copy)]
enum Access {
    Load(Location),
    Store(Inst, Location),
    Call(Inst),
}

/// For each loop, its accesses and its inner loops', or `None` past `MAX_ACCESSES`.
fn list_accesses(f: &Function, loops: &LoopInfo) -> Vec<Option<Vec<Access>>> {
    let access = |i: Inst| match f.kind(i) {
        InstKind::Load { args } => Access::Load(locate(f, args[0])),
        InstKind::Store { args } => Access::Store(i, locate(f, args[1])),
        _ => Access::Call(i),
    };
    loop_accesses(f, loops, MAX_ACCESSES)
        .into_iter()
        .map(|list| list.map(|l| l.into_iter().map(access).collect()))
        .collect()
}

/// What kind of instruction is being moved.
#[derive(Clone, Copy)]
enum Candidate {
    Pure,
    /// A call of a function without visible memory access or I/O that always returns.
    PureCall,
    /// A load of this location, through this address.
    Load(Location, Value),
    Store(Inst, Location),
}

struct Licm<'a> {
    loops: &'a LoopInfo,
    dom: &'a DomTree,
    facts: &'a ModuleFacts,
    func: FuncId,
    accesses: &'a [Option<Vec<Access>>],
}

impl Licm<'_> {
    fn may_alias(&self, a: Location, b: Location) -> bool {
        may_alias_in(self.facts, self.func, a, b)
    }

    /// The outermost loop out of which `i`, in block `b` whose innermost loop is `inner`,
    /// may move, if any.
    fn destination(&self, f: &Function, b: Block, inner: usize, i: Inst) -> Option<usize> {
        let candidate = match f.kind(i) {
            InstKind::Load { args } => Candidate::Load(locate(f, args[0]), args[0]),
            InstKind::Store { args } => Candidate::Store(i, locate(f, args[1])),
            InstKind::Call {
                callee: Callee::Function(g),
                ..
            } if self.facts.summary(*g).is_pure() => Candidate::PureCall,
            _ if is_pinned(f, i) => return None,
            _ => Candidate::Pure,
        };
        let mut best = None;
        let mut k = inner;
        loop {
            let lp = &self.loops.loops[k];
            if lp.preheader.is_none()
                || !self.is_invariant(f, k, i)
                || !self.may_leave(f, k, b, candidate)
            {
                break;
            }
            best = Some(k);
            match lp.parent {
                Some(p) => k = p,
                None => break,
            }
        }
        best
    }

    /// Whether every operand of `i` is defined outside loop `k`.
    fn is_invariant(&self, f: &Function, k: usize, i: Inst) -> bool {
        f.kind(i)
            .operands()
            .iter()
            .all(|&v| self.loops.is_invariant(f, k, v))
    }

    /// Whether the memory rules let `candidate`, in block `b`, leave loop `k`.
    fn may_leave(&self, f: &Function, k: usize, b: Block, candidate: Candidate) -> bool {
        let accesses = |ok: &dyn Fn(&Access) -> bool| {
            self.accesses[k]
                .as_ref()
                .is_some_and(|list| list.iter().all(ok))
        };
        match candidate {
            Candidate::Pure => true,
            Candidate::PureCall => self.runs_before_leaving(k, b),
            Candidate::Load(loc, addr) => {
                (is_in_bounds(f, self.facts, loc)
                    || self.runs_before_leaving(k, b)
                    || self.accessed_before(f, k, addr))
                    && accesses(&|a| match *a {
                        Access::Load(_) => true,
                        Access::Store(_, at) => !self.may_alias(at, loc),
                        Access::Call(c) => !call_may_write(f, self.facts, c, loc),
                    })
            }
            Candidate::Store(store, loc) => {
                self.runs_before_leaving(k, b)
                    && accesses(&|a| match *a {
                        Access::Load(at) => !self.may_alias(at, loc),
                        Access::Store(s, at) => s == store || !self.may_alias(at, loc),
                        Access::Call(c) => {
                            !call_may_write(f, self.facts, c, loc)
                                && !call_may_read(f, self.facts, c, loc)
                        }
                    })
            }
        }
    }

    /// Whether a load or store through `addr` outside loop `k` runs before every entry to
    /// it: reading `addr` before the loop then cannot fault.
    fn accessed_before(&self, f: &Function, k: usize, addr: Value) -> bool {
        let Some(pre) = self.loops.loops[k].preheader else {
            return false;
        };
        f.uses(addr).iter().any(|u| {
            let through = match f.kind(u.inst) {
                InstKind::Load { .. } => u.index == 0,
                InstKind::Store { .. } => u.index == 1,
                _ => false,
            };
            through
                && f.inst_block(u.inst)
                    .is_some_and(|ub| !self.loops.contains(k, ub) && self.dom.dominates(ub, pre))
        })
    }

    /// Whether block `b` dominates every block of loop `k` with a successor outside it.
    fn runs_before_leaving(&self, k: usize, b: Block) -> bool {
        self.loops.loops[k]
            .exiting
            .iter()
            .all(|&e| self.dom.dominates(b, e))
    }
}
