//! Merge functions (LLVM's MergeFunctions): finds functions that do exactly the same thing,
//! keeps one of each group and points every call of the others at it.
//!
//! Equality is decided by a total order over functions (`FunctionComparator`): the
//! signature first (parameter count and types, return type), then the reachable blocks in
//! a canonical order, depth-first from the entry following successor order, and within
//! them the instructions in order: opcode, result type, immediates (predicates, strides,
//! alloca element type and count, callees), operand kinds and types, constants by their
//! exact bits (floats by bit pattern, so `0.0` and `-0.0` differ), globals and callees by
//! identity (a call to the function itself matches a call to the other function itself, so
//! self-recursive twins are equal), block references by their canonical number, and local
//! values (parameters and instruction results) by serial numbers: parameter `i` pairs with
//! parameter `i`, and every other value gets the next number where the walk first meets it,
//! so the first occurrence fixes the pairing and later ones must agree. A phi's incoming
//! pairs are compared by ascending canonical number of their blocks; those from unreachable
//! blocks never flow and are skipped. Since both sides' numbers come from their own walks,
//! the order is a lexicographic comparison of canonical encodings: total and transitive.
//!
//! Nothing is done when no two functions but `main` share a signature. Otherwise a cheap
//! structural hash (signature, block count, and in canonical order each instruction's
//! opcode, result type, immediates and constant operands, never callees of the module,
//! which merging changes) sorts functions into buckets; only functions of one bucket are
//! compared, each bucket a vector kept sorted by the comparator and searched by bisection. Functions are inserted in module order; one
//! equal to a function already in its bucket is merged: of the two, the one earlier in the
//! module stays and the other is recorded as replaced by it. Its callers changed, so those
//! in the buckets leave them and, with those still waiting, are compared again in a later
//! round (two callers of two equal functions now call the same one and may have become
//! equal), until a round merges nothing. The comparison looks callees up in the record of
//! replacements, so no body changes until the end: then one sweep points every call of a
//! merged function at the function that replaced it, and the merged functions are
//! deleted. (Rewriting callers at each merge would cost a sweep of a caller such as a
//! `main` of 5,000 calls per merge.)
//!
//! SysY has no function pointers and no address-taken functions: every use of a function
//! is a direct call, so a merged function needs no thunk or alias. `main` is never merged
//! into another function, nor another into it.
//!
//! Needs: nothing (builds the call graph for the callers). Preserves:
//! behaviour; the functions that stay keep their order and, but for callees, their bodies,
//! but the function numbering changes when one is deleted.

use crate::analysis::{CallGraph, Preserved};
use crate::ir::{Block, Callee, FuncId, Function, Inst, InstKind, Module, Type, Value};
use crate::passes::ModuleAnalyses;
use crate::transform::remove_functions::remove_functions;
use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// No canonical number: an unreachable block, or a value not met yet.
const NONE: u32 = u32::MAX;

pub fn run(m: &mut Module, _: &mut ModuleAnalyses) -> Preserved {
    let main = m.find_function("main");
    if !signatures_repeat(m, main) {
        return Preserved::All;
    }
    let graph = CallGraph::new(m);
    let callers = m
        .function_ids()
        .map(|f| graph.callers(f).to_vec())
        .collect();
    let mut merger = Merger::new(m, main, callers);
    let mut worklist: Vec<FuncId> = m.function_ids().filter(|&f| Some(f) != main).collect();
    while !worklist.is_empty() {
        for f in worklist {
            merger.insert(m, f);
        }
        worklist = merger.take_deferred();
    }
    let keep: Vec<bool> = merger.state.iter().map(|&s| s != State::Merged).collect();
    if keep.iter().all(|&k| k) {
        return Preserved::All;
    }
    retarget_calls(m, &keep, &merger.replacement);
    remove_functions(m, &keep);
    Preserved::Nothing
}

/// Whether two functions other than `main` have one signature: else none can merge.
fn signatures_repeat(m: &Module, main: Option<FuncId>) -> bool {
    let mut signatures: Vec<Vec<u8>> = m
        .function_ids()
        .filter(|&f| Some(f) != main)
        .map(|f| {
            let f = m.function(f);
            f.params.iter().chain([&f.ret]).map(|&t| t as u8).collect()
        })
        .collect();
    signatures.sort_unstable();
    signatures.windows(2).any(|pair| pair[0] == pair[1])
}

/// Where a function stands in the merging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// `main`: never compared.
    Excluded,
    /// To be inserted into its bucket (again, after its callees changed).
    Waiting,
    /// In its bucket, equal to no other function there.
    InTree,
    /// Merged into another function; deleted at the end.
    Merged,
}

/// What a comparison reads: the module, every function's shape, and for each function
/// the one its calls go to (itself unless it was merged).
#[derive(Clone, Copy)]
struct Context<'a> {
    m: &'a Module,
    shapes: &'a [Shape],
    replacement: &'a [FuncId],
}

/// The function a call of `f` goes to once the merges recorded in `replacement` are done.
fn resolve(replacement: &[FuncId], mut f: FuncId) -> FuncId {
    while replacement[f.index()] != f {
        f = replacement[f.index()];
    }
    f
}

/// A function's canonical block order and structural hash; merging changes what callees
/// resolve to, nothing these depend on, so both stay valid throughout. `main`'s is empty.
#[derive(Default)]
struct Shape {
    /// Reachable blocks, depth-first from the entry following successor order.
    order: Vec<Block>,
    /// Each block's index in `order`, by block index; `NONE` for unreachable blocks.
    number: Vec<u32>,
    hash: u64,
}

impl Shape {
    fn new(f: &Function) -> Shape {
        let mut number = vec![NONE; f.block_capacity()];
        let mut order = Vec::new();
        let mut stack: Vec<Block> = f.entry().into_iter().collect();
        while let Some(b) = stack.pop() {
            if number[b.index()] != NONE {
                continue;
            }
            number[b.index()] = order.len() as u32;
            order.push(b);
            stack.extend(f.successors(b).iter().rev());
        }
        let hash = structural_hash(f, &order);
        Shape {
            order,
            number,
            hash,
        }
    }
}

/// The signature, the block count and each block's instructions but for their local
/// operands and callees: opcode, result type, immediates and the constants, globals and
/// undefined values among their operands (not a phi's, whose incoming order may differ).
/// Equal for equal functions, and unchanged by merging, which changes only callees.
fn structural_hash(f: &Function, order: &[Block]) -> u64 {
    let mut h = DefaultHasher::new();
    f.params.hash(&mut h);
    f.ret.hash(&mut h);
    order.len().hash(&mut h);
    for &b in order {
        let mut count = 0usize;
        for i in f.block_insts(b) {
            let data = f.inst(i);
            data.kind.opcode().hash(&mut h);
            data.ty.hash(&mut h);
            hash_immediates(&data.kind, &mut h);
            if !data.kind.is_phi() {
                for v in data.kind.operands() {
                    if !matches!(v, Value::Param(_) | Value::Inst(_)) {
                        v.hash(&mut h);
                    }
                }
            }
            count += 1;
        }
        count.hash(&mut h);
    }
    h.finish()
}

/// The immediates that merging cannot change: all but callees of the module.
fn hash_immediates(kind: &InstKind, h: &mut DefaultHasher) {
    match kind {
        InstKind::Alloca { elem, count } => (elem, count).hash(h),
        InstKind::Gep { stride, .. } => stride.hash(h),
        InstKind::Icmp { pred, .. } => pred.hash(h),
        InstKind::Fcmp { pred, .. } => pred.hash(h),
        InstKind::Call {
            callee: Callee::Function(_),
            ..
        } => {}
        InstKind::Call { callee, .. } => callee.hash(h),
        _ => {}
    }
}

struct Merger {
    shapes: Vec<Shape>,
    state: Vec<State>,
    /// For each function, the one it was merged into, or itself. The calls are rewritten
    /// once at the end; until then the comparison looks callees up here.
    replacement: Vec<FuncId>,
    /// The functions in the tree, by structural hash, each bucket sorted by `compare`
    /// (empty buckets may stay).
    buckets: BTreeMap<u64, Vec<FuncId>>,
    /// Callers of each function, possibly repeated, possibly merged since.
    callers: Vec<Vec<FuncId>>,
    /// Functions to insert again in the next round.
    deferred: Vec<FuncId>,
}

impl Merger {
    fn new(m: &Module, main: Option<FuncId>, callers: Vec<Vec<FuncId>>) -> Merger {
        let state: Vec<State> = m
            .function_ids()
            .map(|f| {
                if Some(f) == main {
                    State::Excluded
                } else {
                    State::Waiting
                }
            })
            .collect();
        let shapes = m
            .functions
            .iter()
            .zip(&state)
            .map(|(f, &s)| {
                if s == State::Excluded {
                    Shape::default()
                } else {
                    Shape::new(f)
                }
            })
            .collect();
        Merger {
            shapes,
            state,
            replacement: m.function_ids().collect(),
            buckets: BTreeMap::new(),
            callers,
            deferred: Vec::new(),
        }
    }

    /// Puts `f` into its bucket, or merges it with the equal function found there.
    fn insert(&mut self, m: &Module, f: FuncId) {
        if self.state[f.index()] != State::Waiting {
            return;
        }
        let cx = Context {
            m,
            shapes: &self.shapes,
            replacement: &self.replacement,
        };
        let bucket = self.buckets.entry(cx.shapes[f.index()].hash).or_default();
        let found = bucket.binary_search_by(|&probe| compare(cx, probe, f));
        let (keep, gone) = match found {
            Err(pos) => {
                bucket.insert(pos, f);
                self.state[f.index()] = State::InTree;
                return;
            }
            Ok(pos) => {
                let equal = bucket[pos];
                let pair = (equal.min(f), equal.max(f));
                // Equal under the order, so the kept one takes the same place.
                bucket[pos] = pair.0;
                pair
            }
        };
        self.state[keep.index()] = State::InTree;
        self.state[gone.index()] = State::Merged;
        self.replacement[gone.index()] = keep;
        self.requeue_callers(gone, keep);
    }

    /// Hands the callers of `gone` to `keep` and queues them: their calls now go elsewhere.
    fn requeue_callers(&mut self, gone: FuncId, keep: FuncId) {
        let callers = std::mem::take(&mut self.callers[gone.index()]);
        for &caller in &callers {
            self.requeue(caller);
        }
        let kept = &mut self.callers[keep.index()];
        kept.extend(callers);
        kept.sort_unstable();
        kept.dedup();
    }

    /// Takes a function whose callees changed out of its bucket and defers it.
    fn requeue(&mut self, f: FuncId) {
        match self.state[f.index()] {
            State::InTree => {
                if let Some(bucket) = self.buckets.get_mut(&self.shapes[f.index()].hash) {
                    bucket.retain(|&g| g != f);
                }
                self.state[f.index()] = State::Waiting;
                self.deferred.push(f);
            }
            State::Waiting => self.deferred.push(f),
            State::Excluded | State::Merged => {}
        }
    }

    /// The deferred functions still waiting, in module order.
    fn take_deferred(&mut self) -> Vec<FuncId> {
        let mut next = std::mem::take(&mut self.deferred);
        next.sort_unstable();
        next.dedup();
        next.retain(|f| self.state[f.index()] == State::Waiting);
        next
    }
}

/// Points every call of a merged function, in the functions that stay, at the function
/// it was merged into.
fn retarget_calls(m: &mut Module, keep: &[bool], replacement: &[FuncId]) {
    let mut calls: Vec<(FuncId, Inst, FuncId)> = Vec::new();
    for id in m.function_ids().filter(|f| keep[f.index()]) {
        for (i, g) in m.function(id).calls() {
            let to = resolve(replacement, g);
            if to != g {
                calls.push((id, i, to));
            }
        }
    }
    for (id, call, to) in calls {
        m.function_mut(id).set_callee(call, Callee::Function(to));
    }
}

/// The total order of functions `left` and `right`.
fn compare(cx: Context, left: FuncId, right: FuncId) -> Ordering {
    FunctionComparator {
        left: Side::new(cx, left),
        right: Side::new(cx, right),
    }
    .compare()
}

/// One of the two functions being compared, with the serial numbers given so far.
struct Side<'a> {
    id: FuncId,
    f: &'a Function,
    shape: &'a Shape,
    replacement: &'a [FuncId],
    /// Each instruction's serial number, by instruction index; `NONE` until met.
    serial: Vec<u32>,
    /// The next serial number; parameters have the first ones.
    next: u32,
}

impl<'a> Side<'a> {
    fn new(cx: Context<'a>, id: FuncId) -> Side<'a> {
        let f = cx.m.function(id);
        Side {
            id,
            f,
            shape: &cx.shapes[id.index()],
            replacement: cx.replacement,
            serial: vec![NONE; f.inst_capacity()],
            next: f.params.len() as u32,
        }
    }

    /// The serial number of a parameter or instruction result, given now if first met.
    fn serial(&mut self, v: Value) -> u32 {
        match v {
            Value::Param(p) => p,
            Value::Inst(i) => {
                if self.serial[i.index()] == NONE {
                    self.serial[i.index()] = self.next;
                    self.next += 1;
                }
                self.serial[i.index()]
            }
            _ => unreachable!("only parameters and instructions have serial numbers"),
        }
    }

    fn block_number(&self, b: Block) -> u32 {
        self.shape.number[b.index()]
    }

    /// What a callee is, as compared: a call of the function itself first, then other
    /// functions (as merged so far), runtime functions, `putf` formats, `memset` and `memcpy`, each
    /// by identity.
    fn callee_key(&self, callee: &Callee) -> (u8, u32) {
        match *callee {
            Callee::Function(g) => match resolve(self.replacement, g) {
                g if g == self.id => (0, 0),
                g => (1, g.0),
            },
            Callee::Runtime(r) => (2, r as u32),
            Callee::Putf(format) => (3, format),
            Callee::Memset => (4, 0),
            Callee::Memcpy => (5, 0),
        }
    }

    /// A phi's incoming pairs from reachable blocks as (canonical block number, value), by
    /// ascending block number.
    fn incoming(&self, args: &[Value], blocks: &[Block]) -> Vec<(u32, Value)> {
        let mut pairs: Vec<(u32, Value)> = blocks
            .iter()
            .map(|&b| self.block_number(b))
            .zip(args.iter().copied())
            .filter(|&(number, _)| number != NONE)
            .collect();
        pairs.sort_by_key(|&(number, _)| number);
        pairs
    }
}

/// Compares two functions in the manner of LLVM's `FunctionComparator` (in its
/// MergeFunctions pass); the first difference decides.
struct FunctionComparator<'a> {
    left: Side<'a>,
    right: Side<'a>,
}

impl FunctionComparator<'_> {
    fn compare(&mut self) -> Ordering {
        self.cmp_signatures().then_with(|| self.cmp_bodies())
    }

    fn cmp_signatures(&self) -> Ordering {
        let (l, r) = (self.left.f, self.right.f);
        l.params
            .len()
            .cmp(&r.params.len())
            .then_with(|| {
                l.params
                    .iter()
                    .zip(&r.params)
                    .map(|(&a, &b)| cmp_types(a, b))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| cmp_types(l.ret, r.ret))
    }

    fn cmp_bodies(&mut self) -> Ordering {
        let (l, r) = (self.left.shape, self.right.shape);
        l.order.len().cmp(&r.order.len()).then_with(|| {
            l.order
                .iter()
                .zip(&r.order)
                .map(|(&a, &b)| self.cmp_blocks(a, b))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    }

    fn cmp_blocks(&mut self, a: Block, b: Block) -> Ordering {
        let (lf, rf) = (self.left.f, self.right.f);
        let mut left = lf.block_insts(a);
        let mut right = rf.block_insts(b);
        loop {
            match (left.next(), right.next()) {
                (Some(i), Some(j)) => {
                    let o = self.cmp_insts(i, j);
                    if o.is_ne() {
                        return o;
                    }
                }
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
            }
        }
    }

    fn cmp_insts(&mut self, i: Inst, j: Inst) -> Ordering {
        let (l, r) = (self.left.f.inst(i), self.right.f.inst(j));
        self.cmp_values(Value::Inst(i), Value::Inst(j))
            .then_with(|| l.kind.opcode().cmp(&r.kind.opcode()))
            .then_with(|| cmp_types(l.ty, r.ty))
            .then_with(|| self.cmp_immediates(&l.kind, &r.kind))
            .then_with(|| match (&l.kind, &r.kind) {
                (
                    InstKind::Phi { args, blocks },
                    InstKind::Phi {
                        args: r_args,
                        blocks: r_blocks,
                    },
                ) => self.cmp_phis(args, blocks, r_args, r_blocks),
                _ => self.cmp_operands(&l.kind, &r.kind),
            })
    }

    /// What two instructions of one opcode do besides their operands.
    fn cmp_immediates(&self, l: &InstKind, r: &InstKind) -> Ordering {
        match (l, r) {
            (
                InstKind::Alloca { elem, count },
                InstKind::Alloca {
                    elem: r_elem,
                    count: r_count,
                },
            ) => cmp_types(*elem, *r_elem).then(count.cmp(r_count)),
            (
                InstKind::Gep { stride, .. },
                InstKind::Gep {
                    stride: r_stride, ..
                },
            ) => stride.cmp(r_stride),
            (InstKind::Icmp { pred, .. }, InstKind::Icmp { pred: r_pred, .. }) => {
                (*pred as u8).cmp(&(*r_pred as u8))
            }
            (InstKind::Fcmp { pred, .. }, InstKind::Fcmp { pred: r_pred, .. }) => {
                (*pred as u8).cmp(&(*r_pred as u8))
            }
            (
                InstKind::Call { callee, .. },
                InstKind::Call {
                    callee: r_callee, ..
                },
            ) => self
                .left
                .callee_key(callee)
                .cmp(&self.right.callee_key(r_callee)),
            _ => Ordering::Equal,
        }
    }

    /// Operands in order, then branch targets by canonical number.
    fn cmp_operands(&mut self, l: &InstKind, r: &InstKind) -> Ordering {
        let (l_ops, r_ops) = (l.operands(), r.operands());
        let (l_targets, r_targets) = (l.targets(), r.targets());
        l_ops
            .len()
            .cmp(&r_ops.len())
            .then_with(|| {
                l_ops
                    .iter()
                    .zip(r_ops)
                    .map(|(&a, &b)| self.cmp_values(a, b))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| l_targets.len().cmp(&r_targets.len()))
            .then_with(|| {
                l_targets
                    .iter()
                    .zip(r_targets)
                    .map(|(&a, &b)| self.left.block_number(a).cmp(&self.right.block_number(b)))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
    }

    fn cmp_phis(
        &mut self,
        l_args: &[Value],
        l_blocks: &[Block],
        r_args: &[Value],
        r_blocks: &[Block],
    ) -> Ordering {
        let left = self.left.incoming(l_args, l_blocks);
        let right = self.right.incoming(r_args, r_blocks);
        left.len().cmp(&right.len()).then_with(|| {
            left.iter()
                .zip(&right)
                .map(|(&(lb, lv), &(rb, rv))| lb.cmp(&rb).then_with(|| self.cmp_values(lv, rv)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    }

    /// Values: first their kind and type, then locals by serial number, constants by their
    /// bits, globals by identity.
    fn cmp_values(&mut self, l: Value, r: Value) -> Ordering {
        let (lt, rt) = (self.left.f.value_type(l), self.right.f.value_type(r));
        value_kind(l)
            .cmp(&value_kind(r))
            .then_with(|| cmp_types(lt, rt))
            .then_with(|| match (l, r) {
                (Value::Int(a), Value::Int(b)) => a.cmp(&b),
                (Value::Bool(a), Value::Bool(b)) => a.cmp(&b),
                (Value::Float(a), Value::Float(b)) => a.cmp(&b),
                (Value::Global(a), Value::Global(b)) => a.cmp(&b),
                (Value::Undef(_), Value::Undef(_)) => Ordering::Equal,
                _ => self.left.serial(l).cmp(&self.right.serial(r)),
            })
    }
}

/// The kinds of values in the order compared: locals (parameters and instruction results,
/// numbered alike), integer, boolean and float constants, globals, undefined values.
fn value_kind(v: Value) -> u8 {
    match v {
        Value::Param(_) | Value::Inst(_) => 0,
        Value::Int(_) => 1,
        Value::Bool(_) => 2,
        Value::Float(_) => 3,
        Value::Global(_) => 4,
        Value::Undef(_) => 5,
    }
}

fn cmp_types(a: Type, b: Type) -> Ordering {
    (a as u8).cmp(&(b as u8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parser::parse_module;

    /// Functions of one shape that differ in constants, in which operand each instruction
    /// uses and in their callee (themselves or @sink), some of them equal.
    fn variants() -> Module {
        let mut text = String::from("func @sink(%a0: i32, %a1: i32) -> void {\nbb0:\n  ret\n}\n");
        let mut index = 0;
        for c in [1, 2] {
            for (x, y) in [
                ("%a0", "%a1"),
                ("%a1", "%a0"),
                ("%a0", "%a0"),
                ("%0", "%a1"),
            ] {
                for self_call in [true, false, true] {
                    let name = format!("f{index}");
                    let callee = if self_call { name.as_str() } else { "sink" };
                    text.push_str(&format!(
                        "func @{name}(%a0: i32, %a1: i32) -> void {{\nbb0:\n  %0 = add %a0, {c}\n  \
                         %1 = mul {x}, {y}\n  call void @{callee}(%1, %0)\n  ret\n}}\n"
                    ));
                    index += 1;
                }
            }
        }
        parse_module(&text).unwrap()
    }

    #[test]
    fn the_comparison_is_a_total_order() {
        let m = variants();
        let shapes: Vec<Shape> = m.functions.iter().map(Shape::new).collect();
        let ids: Vec<FuncId> = m.function_ids().collect();
        let replacement: Vec<FuncId> = m.function_ids().collect();
        let cx = Context {
            m: &m,
            shapes: &shapes,
            replacement: &replacement,
        };
        let cmp = |a, b| compare(cx, a, b);
        for &a in &ids {
            assert_eq!(cmp(a, a), Ordering::Equal);
            for &b in &ids {
                assert_eq!(cmp(a, b), cmp(b, a).reverse(), "{a:?} {b:?}");
                if cmp(a, b).is_eq() {
                    assert_eq!(shapes[a.index()].hash, shapes[b.index()].hash);
                }
                for &c in &ids {
                    if cmp(a, b).is_le() && cmp(b, c).is_le() {
                        assert!(cmp(a, c).is_le(), "{a:?} {b:?} {c:?}");
                    }
                }
            }
        }
        let equal_pairs = ids
            .iter()
            .flat_map(|&a| ids.iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| a < b && cmp(a, b).is_eq())
            .count();
        // Each of the 8 constant and operand choices has two equal self-calling functions.
        assert_eq!(equal_pairs, 8);
    }
}
