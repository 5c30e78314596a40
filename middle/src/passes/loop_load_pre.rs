//! loop-load-pre: a load whose address the next iteration of a loop keeps on some paths
//! takes, on those paths, the value it read this iteration: partial redundancy elimination
//! of loads over the back edge. In a two-pointer search (`s = a[l] + a[r]; if (s < t) l =
//! l + 1; else r = r - 1;`) each round moves one index and reloads only the element it
//! moved to, one load per round where there were two; so does the merge of two sorted runs.
//!
//! ```text
//!   P: br H                              P: x0 = load a + 4*i0; br H
//!   H: i = phi [i0, P], [n, L]           H: i = phi [i0, P], [n, L]; v = phi [x0, P], [w, L]
//!      x = load a + 4*i                     (x's uses use v)
//!      condbr c, A, B                       condbr c, A, B
//!   A: i1 = add i, 1; br L               A: i1 = add i, 1; y = load a + 4*i1; br L
//!   B: br L                              B: br L
//!   L: n = phi [i1, A], [i, B]           L: n = phi [i1, A], [i, B]; w = phi [y, A], [v, B]
//!      condbr d, H, E                       condbr d, H, E
//! ```
//!
//! A loop qualifies when it has a preheader that only jumps to the header and one latch
//! other than the header. A load qualifies when its block runs in every iteration (it
//! dominates the latch) and lies outside inner loops, its address is `gep base, i` (or that
//! plus constant bytes) with `base` fixed for the loop and `i` a phi of the header, and
//! nothing in the loop, inner loops included, may write what it reads; other loads of that
//! address anywhere in the loop read the same value and take the phi too. The value `i` takes
//! next must be a phi of a block of the loop that dominates the latch (the paths of the
//! round merge there), each of whose predecessors ("sites") only jumps to it. A site whose
//! path keeps `i` passes the value on; the others load from `i`'s next value at their end;
//! at least one must keep it. Those loads run even when the loop then ends, so each must
//! read a global or local array at most `MAPPED_NEAR` bytes from the address this round
//! read (`i + 1`, `i - 1`, a select of such). The preheader loads the first round's value:
//! no block may leave the loop on the way from the header to the load, or that first
//! address must be a constant one inside a global or local array, or else the header
//! alone may leave before the load, its test can be computed again in the preheader (pure
//! instructions on the first round's values: `i < n && j < m`), and the address points
//! into a global or a local array: the preheader then loads from a select of the address,
//! where the test goes into the loop, and of the array's first element, where it does not. Each carried value
//! holds a register all through the loop, so values are carried only while the loop holds
//! fewer integer values at once than there are core registers.
//!
//! Needs: the dominator tree, the loop forest and the module facts. Preserves: behaviour
//! and the CFG.

use crate::analysis::alias::{
    call_may_write, in_own_array, is_in_bounds, locate, may_alias_in, own_array, Location,
    MAPPED_NEAR,
};
use crate::analysis::{DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{BinaryOp, Block, FuncId, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::loop_accesses::loop_writers;
use crate::transform::loop_pressure::{self, CORE_REGISTERS};
use crate::transform::value_map::{mapped_kind, ValueMap};

/// How deep `distance` looks through additions and selects.
const MAX_DEPTH: u32 = 4;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let mut changed = false;
    for k in 0..loops.loops.len() {
        changed |= carry_loads(f, facts, cx.id, &dom, &loops, k);
    }
    Preserved::cfg_if(changed)
}

/// The loads of one address: `base + index * stride + offset` bytes.
struct Candidate {
    loads: Vec<Inst>,
    block: Block,
    base: Value,
    index: Inst,
    stride: u32,
    offset: Option<i32>,
    ty: Type,
}

/// Where the paths of a round merge before the latch, and what each carries: `None` for a
/// site whose path keeps the index, else the index it loads from.
struct Plan {
    merge: Block,
    sites: Vec<(Block, Option<Value>)>,
    first: Value,
    guard: Option<Guard>,
}

/// When the header may leave the loop before the load's block runs: the first load reads
/// its address only if the header's condition `cond` (computed again on the preheader's
/// values) is `enter` and goes in, and the start of the global or local array `root` it
/// points into otherwise.
struct Guard {
    cond: Value,
    enter: bool,
    root: Value,
}

fn carry_loads(
    f: &mut Function,
    facts: &ModuleFacts,
    func: FuncId,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> bool {
    let lp = &loops.loops[k];
    let (h, Some(p)) = (lp.header, lp.preheader) else {
        return false;
    };
    let &[latch] = lp.latches.as_slice() else {
        return false;
    };
    if latch == h
        || !matches!(
            f.terminator(p).map(|t| f.kind(t)),
            Some(InstKind::Br { .. })
        )
    {
        return false;
    }
    let candidates = candidates(f, facts, func, dom, loops, k);
    if candidates.is_empty() {
        return false;
    }
    let room = CORE_REGISTERS.saturating_sub(loop_pressure::peak(f, loops, k) + 1);
    let mut carried = 0;
    for c in candidates {
        if carried == room {
            break;
        }
        if let Some(plan) = plan(f, facts, dom, loops, k, &c) {
            carry(f, p, h, latch, &c, &plan);
            carried += 1;
        }
    }
    carried > 0
}

/// The qualifying loads of loop `k`, grouped by address, in block order.
fn candidates(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> Vec<Candidate> {
    let lp = &loops.loops[k];
    let latch = lp.latches[0];
    let mut found: Vec<(Value, Candidate)> = Vec::new();
    for &b in lp.blocks.iter().filter(|&&b| dom.dominates(b, latch)) {
        for load in f.block_insts(b) {
            let InstKind::Load { args: [addr] } = *f.kind(load) else {
                continue;
            };
            if let Some((_, c)) = found.iter_mut().find(|(a, _)| same_address(f, *a, addr)) {
                c.loads.push(load);
                continue;
            }
            if let Some(c) = address(f, loops, k, addr, lp.header) {
                found.push((
                    addr,
                    Candidate {
                        loads: vec![load],
                        block: b,
                        ty: f.inst(load).ty,
                        ..c
                    },
                ));
            }
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    // The same address read where not every round goes reads the same value.
    for &b in loops.blocks_of(k) {
        if lp.blocks.contains(&b) && dom.dominates(b, latch) {
            continue;
        }
        for i in f.block_insts(b) {
            if let InstKind::Load { args: [addr] } = *f.kind(i) {
                if let Some((_, c)) = found.iter_mut().find(|(a, _)| same_address(f, *a, addr)) {
                    c.loads.push(i);
                }
            }
        }
    }
    let (stores, calls) = loop_writers(f, loops, k);
    found
        .into_iter()
        .filter(|(addr, _)| {
            let loc = locate(f, *addr);
            !stores
                .iter()
                .any(|&(_, s)| may_alias_in(facts, func, s, loc))
                && !calls.iter().any(|&c| call_may_write(f, facts, c, loc))
        })
        .map(|(_, c)| c)
        .collect()
}

/// Whether `a` and `b` are one address: one value, or `gep`s of the same operands.
fn same_address(f: &Function, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let (Some(x), Some(y)) = (a.as_inst(), b.as_inst()) else {
        return false;
    };
    match (f.kind(x), f.kind(y)) {
        (
            InstKind::Gep {
                args: [p, i],
                stride: s,
            },
            InstKind::Gep {
                args: [q, j],
                stride: t,
            },
        ) => s == t && i == j && same_address(f, *p, *q),
        _ => false,
    }
}

/// `addr` as `gep base, i` or `gep (gep base, i), c` with `base` fixed for loop `k` and `i`
/// a phi of its header `h`; the loads and their type are left to fill.
fn address(f: &Function, loops: &LoopInfo, k: usize, addr: Value, h: Block) -> Option<Candidate> {
    let mut inner = addr.as_inst()?;
    let mut offset = None;
    if let InstKind::Gep {
        args: [g, Value::Int(c)],
        stride: 1,
    } = *f.kind(inner)
    {
        inner = g.as_inst()?;
        offset = Some(c);
    }
    let InstKind::Gep {
        args: [base, Value::Inst(index)],
        stride,
    } = *f.kind(inner)
    else {
        return None;
    };
    let is_header_phi = f.kind(index).is_phi() && f.inst_block(index) == Some(h);
    (is_header_phi && loops.is_invariant(f, k, base)).then_some(Candidate {
        loads: Vec::new(),
        block: h,
        base,
        index,
        stride,
        offset,
        ty: Type::I32,
    })
}

/// How the load's value gets carried, or `None` when it cannot be or would save nothing.
fn plan(
    f: &Function,
    facts: &ModuleFacts,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
    c: &Candidate,
) -> Option<Plan> {
    let lp = &loops.loops[k];
    let (h, p, latch) = (lp.header, lp.preheader?, lp.latches[0]);
    let first = f.phi_incoming(c.index, p)?;
    let runs = exits_before(dom, loops, k, c.block).is_some_and(|e| e.is_empty());
    let guard = if runs || first_in_bounds(f, facts, c, first) {
        None
    } else {
        Some(guard(f, dom, loops, k, c)?)
    };
    let next = f.phi_incoming(c.index, latch)?.as_inst()?;
    let merge = f.inst_block(next)?;
    let InstKind::Phi { args, blocks } = f.kind(next) else {
        return None;
    };
    if merge == h || loops.innermost(merge) != Some(k) || !dom.dominates(merge, latch) {
        return None;
    }
    let near = in_own_array(f, c.base);
    let mut sites = Vec::new();
    for (&v, &q) in args.iter().zip(blocks) {
        if f.successors(q) != [merge] {
            return None;
        }
        if v == Value::Inst(c.index) {
            sites.push((q, None));
            continue;
        }
        let bytes =
            distance(f, v, Value::Inst(c.index), MAX_DEPTH)?.checked_mul(c.stride.into())?;
        if !near || bytes > u64::from(MAPPED_NEAR) {
            return None;
        }
        sites.push((q, Some(v)));
    }
    let kept = sites.iter().filter(|(_, s)| s.is_none()).count();
    (kept > 0 && kept < sites.len()).then_some(Plan {
        merge,
        sites,
        first,
        guard,
    })
}

/// The blocks of loop `k` that may leave it on the way from the header to block `b` (`b`
/// itself not counted); `None` when `b` is not under the header in the dominator tree.
fn exits_before(dom: &DomTree, loops: &LoopInfo, k: usize, mut b: Block) -> Option<Vec<Block>> {
    let lp = &loops.loops[k];
    let mut exits = Vec::new();
    while b != lp.header {
        b = dom.idom(b)?;
        if lp.exiting.contains(&b) {
            exits.push(b);
        }
    }
    Some(exits)
}

/// The guard of `c`'s first load when the header is the only block that may leave the
/// loop before the load's, its condition can be computed on the preheader's values (the
/// header's pure instructions, at most `MAX_DEPTH` deep), and the address points into a
/// global or a local array.
fn guard(f: &Function, dom: &DomTree, loops: &LoopInfo, k: usize, c: &Candidate) -> Option<Guard> {
    let lp = &loops.loops[k];
    let h = lp.header;
    if exits_before(dom, loops, k, c.block)? != [h] {
        return None;
    }
    let InstKind::CondBr {
        args: [cond],
        targets: [yes, no],
    } = *f.kind(f.terminator(h)?)
    else {
        return None;
    };
    let enter = loops.contains(k, yes);
    if enter == loops.contains(k, no) || !computable_before(f, h, cond, MAX_DEPTH) {
        return None;
    }
    let root = own_array(f, c.base)?;
    Some(Guard { cond, enter, root })
}

/// Whether `v`, as the header `h` computes it, can be computed before the loop: a value
/// from outside `h`, a phi of `h`, or a pure instruction of `h` on such values.
fn computable_before(f: &Function, h: Block, v: Value, depth: u32) -> bool {
    let Some(i) = v.as_inst().filter(|&i| f.inst_block(i) == Some(h)) else {
        return true;
    };
    let kind = f.kind(i);
    if kind.is_phi() {
        return true;
    }
    let op = kind.opcode();
    depth > 0
        && !op.reads_memory()
        && !op.has_side_effects()
        && !op.may_fault()
        && kind
            .operands()
            .iter()
            .all(|&x| computable_before(f, h, x, depth - 1))
}

/// Whether `c`'s address for the index `first` is a constant offset inside a global or
/// local array (`merge` of runs starting at 0), which may be read in any case.
fn first_in_bounds(f: &Function, facts: &ModuleFacts, c: &Candidate, first: Value) -> bool {
    let base = locate(f, c.base);
    let (Some(at), Some(index)) = (base.offset, first.as_int()) else {
        return false;
    };
    let offset = at + i64::from(index) * i64::from(c.stride) + i64::from(c.offset.unwrap_or(0));
    is_in_bounds(
        f,
        facts,
        Location {
            object: base.object,
            offset: Some(offset),
        },
    )
}

/// At most how many elements `v` lies from `from`: through additions and subtractions of
/// constants and selects, `None` past `depth` or for anything else.
fn distance(f: &Function, v: Value, from: Value, depth: u32) -> Option<u64> {
    if v == from {
        return Some(0);
    }
    let i = v.as_inst().filter(|_| depth > 0)?;
    let step =
        |x: Value, c: i32| Some(distance(f, x, from, depth - 1)? + u64::from(c.unsigned_abs()));
    match *f.kind(i) {
        InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)] | [Value::Int(c), x],
        }
        | InstKind::Binary {
            op: BinaryOp::Sub,
            args: [x, Value::Int(c)],
        } => step(x, c),
        InstKind::Select { args: [_, x, y] } => {
            Some(distance(f, x, from, depth - 1)?.max(distance(f, y, from, depth - 1)?))
        }
        _ => None,
    }
}

/// Carries `c`'s value by `plan`: the preheader `p` loads the first, a phi of the header `h`
/// takes it and the merge's phi, which takes the value on sites that keep the index and a
/// load on the others.
fn carry(f: &mut Function, p: Block, h: Block, latch: Block, c: &Candidate, plan: &Plan) {
    let end = f.terminator(p).expect("a preheader ends in a jump");
    let guard = plan.guard.as_ref().map(|g| {
        let mut at = ValueMap::default();
        for phi in f.phis(h).collect::<Vec<_>>() {
            let v = f
                .phi_incoming(phi, p)
                .expect("a header phi takes a value from the preheader");
            at.insert(phi, v);
        }
        (computed_before(f, h, end, g.cond, &mut at), g)
    });
    let first = load_at(f, end, c, plan.first, guard);
    let value = f.prepend_inst(
        h,
        InstKind::Phi {
            args: vec![Value::Inst(first)],
            blocks: vec![p],
        },
        c.ty,
    );
    let mut args = Vec::new();
    let mut blocks = Vec::new();
    for &(q, next) in &plan.sites {
        let v = match next {
            None => Value::Inst(value),
            Some(index) => {
                let end = f.terminator(q).expect("a site ends in a jump");
                Value::Inst(load_at(f, end, c, index, None))
            }
        };
        args.push(v);
        blocks.push(q);
    }
    let next = f.prepend_inst(plan.merge, InstKind::Phi { args, blocks }, c.ty);
    f.add_phi_incoming(value, Value::Inst(next), latch);
    for &load in &c.loads {
        f.replace_all_uses(Value::Inst(load), Value::Inst(value));
        f.remove_inst(load);
    }
}

/// `v` as the header `h` computes it, computed before `before` on the values `at` gives
/// the header's phis and the instructions already copied (`computable_before` holds).
fn computed_before(f: &mut Function, h: Block, before: Inst, v: Value, at: &mut ValueMap) -> Value {
    let Some(i) = v.as_inst().filter(|&i| f.inst_block(i) == Some(h)) else {
        return v;
    };
    if let Some(&known) = at.get(&i) {
        return known;
    }
    for x in f.kind(i).operands().to_vec() {
        computed_before(f, h, before, x, at);
    }
    let kind = mapped_kind(f, i, at);
    let ty = f.inst(i).ty;
    let copy = Value::Inst(f.insert_inst_before(before, kind, ty));
    at.insert(i, copy);
    copy
}

/// A load of `c`'s address with `index` for its phi, inserted before `before`; with a
/// guard's condition computed there, of its root global where the loop is not entered.
fn load_at(
    f: &mut Function,
    before: Inst,
    c: &Candidate,
    index: Value,
    guard: Option<(Value, &Guard)>,
) -> Inst {
    let mut addr = f.insert_inst_before(
        before,
        InstKind::Gep {
            args: [c.base, index],
            stride: c.stride,
        },
        Type::Ptr,
    );
    if let Some(offset) = c.offset {
        addr = f.insert_inst_before(
            before,
            InstKind::Gep {
                args: [Value::Inst(addr), Value::Int(offset)],
                stride: 1,
            },
            Type::Ptr,
        );
    }
    let mut addr = Value::Inst(addr);
    if let Some((cond, g)) = guard {
        let (yes, no) = if g.enter {
            (addr, g.root)
        } else {
            (g.root, addr)
        };
        let pick = InstKind::Select {
            args: [cond, yes, no],
        };
        addr = Value::Inst(f.insert_inst_before(before, pick, Type::Ptr));
    }
    f.insert_inst_before(before, InstKind::Load { args: [addr] }, c.ty)
}
