//! loop-idioms: a counted loop whose only effect is to fill an array with one repeated byte
//! (`a[i] = 0`, `a[i] = -1`, a float whose four bytes are equal) becomes one `memset`, and
//! one whose only effect is to copy an array into another (`a[i] = b[i]`) one `memcpy`,
//! both called in the loop's preheader; the loop goes.
//!
//! ```text
//!   P: br H                          P: n = exit count (0 where its guard fails)
//!   H: i = phi [s, P], [i + 1, H]       memset(gep a, 4s, 0, (n + 1) * 4)
//!      store 0, gep a, i                br E
//!      condbr i + 1 < m, H, E
//! ```
//!
//! The one store (or call) with effects of the loop must run once per iteration, where the
//! exit test runs too: its block belongs to the loop itself (not an inner one) and dominates
//! the loop's only exiting block, which dominates the latch. Scalar evolution
//! (`analysis::scev`) gives the exit count `n`, the times that block lets the loop go on,
//! so the store runs `n + 1` times once the loop is entered (a rotated loop runs at least
//! once, and the preheader runs exactly when it is entered). Its address must move by the
//! size it writes each iteration, forwards or backwards, from a pointer defined before the
//! loop: `root + start + k * step` bytes in iteration `k`, `|step|` the 4 bytes of a store,
//! so the `n + 1` writes cover `[root + low, root + low + (n + 1) * |step|)` exactly, `low`
//! being `start` going forwards and `start + n * step` going backwards. Addresses wrap as
//! the IR's 32-bit arithmetic does, so a counter that wraps still writes consecutive words;
//! `(n + 1) * |step|` is the size of memory the loop writes, so it fits in 32 bits.
//!
//! A fill's value is a constant whose bytes are all equal. A copy's value is a load in the
//! loop from an address moving by the same step, from an object that alias analysis proves
//! distinct from the destination's (two globals, an `alloca` and anything else, parameters
//! the module's calls never pass overlapping), so `memcpy`'s ranges never overlap, and
//! nothing in the loop writes the source. Other loads of the loop, unused after it, go with
//! it. Every value of the loop used after it must be a recurrence (the counter): those are
//! computed by formula in the exit block, as `loop-closed-form` does, and the loop is
//! deleted as `loop-deletion` deletes one.
//!
//! A loop whose effect is a `memset` or `memcpy` of a constant `L > 0` bytes whose addresses
//! move by `L` each iteration, what zeroing a matrix row by row leaves once the inner loop
//! is a call, becomes one call over all the rows: the pass repeats on the function while it
//! changes something, at most `MAX_ROUNDS` times (three nested loops).
//!
//! A call pays its overhead (setting up arguments, the branch, libc's dispatch on size and
//! alignment): a loop known at compile time to write fewer than `MIN_BYTES` bytes (16
//! words) stays, as `loop-unroll` writes it out as a few stores with constant addresses.
//! A copy of any other count becomes a call: libc's `memcpy` moves several words per `ldm`
//! and `stm`, the loop one per `ldr` and `str`. A fill of a count unknown at compile time
//! stays a loop: in modelled A72 cycles (`scripts/a72.py`) a call for every such fill made
//! `04_spmv2` 0.991x and `bfs_topo` 0.972x, but `rule_automata` 1.110x, whose one fill runs
//! once before the timed loops and whose call moved the allocation of the whole function,
//! so no rule by the fill alone wins. A fill of a known count becomes a call, and so do the
//! rows of a nest, which then merge into one call.
//!
//! Loops of more than `MAX_BLOCKS` blocks or `MAX_INSTRUCTIONS` instructions stay.
//!
//! Needs: loops in `loop-simplify`'s form (a preheader, one latch, one exiting block whose
//! exit is reached only from it), the CFG, the dominator tree, the loop forest, the module's
//! function summaries (which calls have effects, which parameters may overlap).
//! Preserves: behaviour (the CFG changes).

use crate::analysis::alias::{locate, may_alias_in, Location};
use crate::analysis::scev::{ExitCount, Invariant, LoopEvolution, Recurrence};
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{BinaryOp, Block, Callee, FuncId, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;
use crate::transform::closed_form::{self, Plan};
use crate::transform::delete_loop::{deletable, delete, has_effect};

/// Loops of more blocks or instructions than these (their inner loops' included) stay.
const MAX_BLOCKS: usize = 64;
const MAX_INSTRUCTIONS: usize = 2000;
/// The fewest bytes, when known at compile time, that a loop of stores must write to
/// become a call.
const MIN_BYTES: u64 = 64;
/// How many times the pass looks at a function's loops again after changing it: a nest of
/// this many loops filling consecutive memory becomes one call.
const MAX_ROUNDS: usize = 3;
/// The bytes one store writes.
const WORD: i32 = 4;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let loops = cx.analyses.loops(f);
        if loops.loops.is_empty() || !one_round(f, cx, &loops) {
            break;
        }
        changed = true;
        cx.analyses.invalidate(Preserved::Nothing);
    }
    Preserved::nothing_if(changed)
}

/// Replaces every loop of `loops` that is an idiom, innermost first; whether any was.
fn one_round(f: &mut Function, cx: &mut FunctionContext, loops: &LoopInfo) -> bool {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    // Loops around a deleted loop: their blocks are no longer all there.
    let mut stale = vec![false; loops.loops.len()];
    let mut changed = false;
    for k in (0..loops.loops.len()).rev() {
        if stale[k] {
            continue;
        }
        let Some(idiom) = find(f, &cfg, &dom, loops, facts, cx.id, k) else {
            continue;
        };
        apply(f, loops, k, idiom);
        changed = true;
        let mut parent = loops.loops[k].parent;
        while let Some(p) = parent {
            stale[p] = true;
            parent = loops.loops[p].parent;
        }
    }
    changed
}

/// An address that moves by a constant step each iteration: `root + start + k * step`
/// bytes in iteration `k`, `root` defined before the loop.
struct Walk {
    root: Value,
    start: Invariant,
    step: i32,
}

/// What the loop writes.
enum Source {
    /// The byte, repeated.
    Byte(Value),
    /// What is at this walk, the destination's step apart.
    Copy(Walk),
}

/// A loop that becomes one call.
struct Idiom {
    preheader: Block,
    /// The store or call that the new call replaces.
    effect: Inst,
    dst: Walk,
    source: Source,
    count: ExitCount,
    exit: Block,
    /// Values of the loop used after it, with their evolutions.
    results: Vec<(Value, Recurrence)>,
}

fn find(
    f: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    facts: &ModuleFacts,
    id: FuncId,
    k: usize,
) -> Option<Idiom> {
    let l = &loops.loops[k];
    let preheader = l.preheader?;
    let (&[exiting], &[exit]) = (l.exiting.as_slice(), l.exits.as_slice()) else {
        return None;
    };
    if cfg.preds(exit) != [exiting] || loops.blocks_of(k).len() > MAX_BLOCKS {
        return None;
    }
    let (effect, used_after) = scan(f, facts, loops, k)?;
    let home = f.inst_block(effect)?;
    if loops.innermost(home) != Some(k) || !dom.dominates(home, exiting) {
        return None;
    }
    let mut evolution = LoopEvolution::new(f, loops, k)?;
    let (dst, source) = write(f, &mut evolution, effect)?;
    if let Source::Copy(src) = &source {
        if src.step != dst.step || may_overlap(f, facts, id, dst.root, src.root) {
            return None;
        }
    }
    let count = evolution.exit_count(dom, exiting)?;
    if !pays(&count, dst.step, &source) {
        return None;
    }
    let results = used_after
        .into_iter()
        .map(|v| Some((v, evolution.recurrence(v)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Idiom {
        preheader,
        effect,
        dst,
        source,
        count,
        exit,
        results,
    })
}

/// The only store or call with effects of loop `k`, and the values of the loop used after
/// it.
fn scan(
    f: &Function,
    facts: &ModuleFacts,
    loops: &LoopInfo,
    k: usize,
) -> Option<(Inst, Vec<Value>)> {
    let mut effect = None;
    let mut used_after = Vec::new();
    let mut size = 0;
    for &b in loops.blocks_of(k) {
        for i in f.block_insts(b) {
            size += 1;
            if size > MAX_INSTRUCTIONS {
                return None;
            }
            if has_effect(f, facts, i) && effect.replace(i).is_some() {
                return None;
            }
            if closed_form::used_outside(f, loops, k, i) {
                used_after.push(Value::Inst(i));
            }
        }
    }
    Some((effect?, used_after))
}

/// Where `effect` writes and what, when it writes consecutive memory each iteration.
fn write(f: &Function, evolution: &mut LoopEvolution, effect: Inst) -> Option<(Walk, Source)> {
    match f.kind(effect) {
        InstKind::Store { args: [v, addr] } => {
            let dst = walk(evolution, *addr, WORD)?;
            let source = stored(f, evolution, *v)?;
            Some((dst, source))
        }
        InstKind::Call {
            callee: callee @ (Callee::Memset | Callee::Memcpy),
            args,
        } => {
            let &[to, from, Value::Int(bytes)] = args.as_slice() else {
                return None;
            };
            if bytes <= 0 {
                return None;
            }
            let dst = walk(evolution, to, bytes)?;
            let source = match callee {
                Callee::Memset if !evolution.is_in_loop(from) => Source::Byte(from),
                Callee::Memcpy => Source::Copy(walk(evolution, from, bytes)?),
                _ => return None,
            };
            Some((dst, source))
        }
        _ => None,
    }
}

/// The evolution of `addr` when it moves by `bytes` forwards or backwards each iteration.
fn walk(evolution: &mut LoopEvolution, addr: Value, bytes: i32) -> Option<Walk> {
    let (root, offset) = evolution.address(addr)?;
    let (start, step) = offset.as_affine()?;
    (step == bytes || step == -bytes).then(|| Walk {
        root,
        start: start.clone(),
        step,
    })
}

/// What storing `v` each iteration writes: a constant of one repeated byte, or what a load
/// of the loop reads.
fn stored(f: &Function, evolution: &mut LoopEvolution, v: Value) -> Option<Source> {
    let bits = match v {
        Value::Int(x) => x as u32,
        Value::Float(bits) => bits,
        Value::Inst(i) if evolution.is_in_loop(v) => {
            let InstKind::Load { args: [addr] } = f.kind(i) else {
                return None;
            };
            return walk(evolution, *addr, WORD).map(Source::Copy);
        }
        _ => return None,
    };
    let byte = bits.to_le_bytes()[0];
    (bits == u32::from_le_bytes([byte; 4])).then_some(Source::Byte(Value::Int(i32::from(byte))))
}

/// Whether memory reached from `a` may be memory reached from `b`.
fn may_overlap(f: &Function, facts: &ModuleFacts, id: FuncId, a: Value, b: Value) -> bool {
    let whole = |v: Value| Location {
        object: locate(f, v).object,
        offset: None,
    };
    may_alias_in(facts, id, whole(a), whole(b))
}

/// Whether a call pays for itself: not for a loop of stores known to write fewer than
/// `MIN_BYTES` bytes, nor for a fill of a count unknown at compile time.
fn pays(count: &ExitCount, step: i32, source: &Source) -> bool {
    let known = match (&count.guard, count.count.as_constant()) {
        (None, Some(n)) => Some(u64::from(n as u32) + 1),
        _ => None,
    };
    if step.unsigned_abs() > WORD as u32 {
        return true;
    }
    match known {
        Some(n) => n * u64::from(step.unsigned_abs()) >= MIN_BYTES,
        None => matches!(source, Source::Copy(_)),
    }
}

fn apply(f: &mut Function, loops: &LoopInfo, k: usize, idiom: Idiom) {
    let at = f
        .terminator(idiom.preheader)
        .expect("a preheader ends in a jump to the header");
    let mut w = ArithWriter::new(f, at);
    let count = closed_form::exit_count(&mut w, &idiom.count);
    let iterations = w.binary(BinaryOp::Add, count, Value::Int(1));
    let bytes = w.binary(BinaryOp::Mul, iterations, Value::Int(idiom.dst.step.abs()));
    let dst = lowest_address(&mut w, &idiom.dst, count);
    let (callee, source) = match &idiom.source {
        Source::Byte(byte) => (Callee::Memset, *byte),
        Source::Copy(src) => (Callee::Memcpy, lowest_address(&mut w, src, count)),
    };
    let call = InstKind::Call {
        callee,
        args: vec![dst, source, bytes],
    };
    w.f.insert_inst_before(at, call, Type::Void);
    f.remove_inst(idiom.effect);
    if !idiom.results.is_empty() {
        let plan = Plan {
            exit: idiom.exit,
            count: idiom.count,
            results: idiom.results,
        };
        closed_form::apply(f, loops, k, plan);
    }
    if let Some((preheader, exit)) = deletable(f, loops, k) {
        delete(f, loops, k, preheader, exit);
    }
}

/// The lowest address `walk` reaches in the loop's `count + 1` iterations.
fn lowest_address(w: &mut ArithWriter, walk: &Walk, count: Value) -> Value {
    let start = w.invariant(&walk.start);
    let offset = if walk.step > 0 {
        start
    } else {
        let back = w.binary(BinaryOp::Mul, count, Value::Int(walk.step));
        w.binary(BinaryOp::Add, start, back)
    };
    if offset == Value::Int(0) {
        return walk.root;
    }
    let gep = InstKind::Gep {
        args: [walk.root, offset],
        stride: 1,
    };
    Value::Inst(w.f.insert_inst_before(w.at, gep, Type::Ptr))
}
