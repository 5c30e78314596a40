//! invariant-bases: an address in a loop is a base and index terms, each fixed for the
//! loop, the loop's counter (a phi of its header) or a constant. Where it has fixed terms
//! and the counter, it becomes `gep (gep b, fixed...), i` plus its constant as a byte
//! offset, the inner `gep` computed once in the preheader:
//!
//! - a flattened two-dimensional access `a[i * n + j]` in a loop over `j` adds nothing per
//!   round: the back end folds `gep g, j` into the load's `[g, j, lsl #2]`, where it
//!   computed `i * n + j` first;
//! - the copies of an unrolled body (`prod[i + j]`, `prod[i + j + 1]`, ... in a loop over
//!   `j`) share one address `gep g, j` and take their constants as immediate offsets;
//! - a column walk `t[k + 1][j]`, `t[k + 2][j]`, ... in a loop over `k` becomes one column
//!   address `gep (gep t, j, 4), k, row` plus row offsets, which `pointer-induction` steps
//!   by rows where it stepped a row pointer and added the column each round;
//! - a walk back from a fixed point (`s[n - 1 - i]`, a diagonal `d[row - c + n - 1]`) in a
//!   loop over `i` becomes `gep (gep s, n - 1), 0 - i`, which the back end folds into the
//!   access (`ldr r, [b, -i, lsl #2]`) where it subtracted first.
//!
//! Only sums used by nothing but addresses and base addresses used by nothing else are taken
//! apart (they then go), so no value that was computed anyway gets a second register; a sum
//! of the counter and a constant (its next value) may have other uses, since the address
//! then needs nothing of it. A term that
//! is a product of the counter (a column walk `a[i * n + j]` in a loop over `i`, whose sum
//! the loop's several accesses share) stays, and so does an address without a fixed term
//! (`instcombine` moves its constants outward).
//!
//! Needs: the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{LoopInfo, Preserved};
use crate::ir::{BinaryOp, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let Some(preheader) = loops.loops[k].preheader else {
            continue;
        };
        let blocks = loops.loops[k].blocks.clone();
        for b in blocks {
            let geps: Vec<Inst> = f.block_insts(b).collect();
            for gep in geps {
                if f.inst_block(gep).is_none() {
                    continue;
                }
                let Some(address) = decompose(f, &loops, k, gep) else {
                    continue;
                };
                rebuild(f, preheader, gep, address);
                changed = true;
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// An address as `base + fixed terms ± counter * stride + bytes`, and the geps and sums
/// below the address that computed it.
struct Address {
    base: Value,
    fixed: Vec<Term>,
    counter: Term,
    bytes: i32,
    parts: Vec<Inst>,
}

/// The terms of `gep` in loop `k`, where taking them apart pays: it has a fixed term and the
/// counter, and is not already `gep (gep b, fixed), i` with at most a constant offset.
fn decompose(f: &Function, loops: &LoopInfo, k: usize, gep: Inst) -> Option<Address> {
    let InstKind::Gep { .. } = f.kind(gep) else {
        return None;
    };
    let mut walk = Walk {
        f,
        loops,
        k,
        base: None,
        fixed: Vec::new(),
        counter: None,
        bytes: 0,
        parts: Vec::new(),
    };
    walk.pointer(Value::Inst(gep), true)?;
    let (Some(base), Some(counter)) = (walk.base, walk.counter) else {
        return None;
    };
    if walk.fixed.is_empty() || walk.is_canonical(gep) {
        return None;
    }
    Some(Address {
        base,
        fixed: walk.fixed,
        counter,
        bytes: walk.bytes,
        parts: walk.parts,
    })
}

/// A term of an address (a fixed one, or the counter): `value` times `stride` bytes,
/// subtracted where `negated`.
#[derive(Clone, Copy)]
struct Term {
    value: Value,
    stride: u32,
    negated: bool,
}

/// How many sums up `only_in_addresses` follows the uses of a value.
const MAX_DEPTH: u32 = 3;

struct Walk<'a> {
    f: &'a Function,
    loops: &'a LoopInfo,
    k: usize,
    base: Option<Value>,
    fixed: Vec<Term>,
    counter: Option<Term>,
    bytes: i32,
    parts: Vec<Inst>,
}

impl Walk<'_> {
    fn is_fixed(&self, v: Value) -> bool {
        self.loops.is_invariant(self.f, self.k, v)
    }

    fn is_counter(&self, v: Value) -> bool {
        let header = self.loops.loops[self.k].header;
        v.as_inst()
            .is_some_and(|i| self.f.kind(i).is_phi() && self.f.inst_block(i) == Some(header))
    }

    /// Whether every use of `i` is an operand of a gep, or of a sum with that property (at
    /// most `MAX_DEPTH` sums up): taking it apart frees it.
    fn only_in_addresses(&self, i: Inst, depth: u32) -> bool {
        self.f
            .uses(Value::Inst(i))
            .iter()
            .all(|u| match self.f.kind(u.inst) {
                InstKind::Gep { .. } => true,
                InstKind::Binary {
                    op: BinaryOp::Add | BinaryOp::Sub,
                    ..
                } => depth < MAX_DEPTH && self.only_in_addresses(u.inst, depth + 1),
                _ => false,
            })
    }

    /// The terms of the pointer `p`; `top` for the address itself.
    fn pointer(&mut self, p: Value, top: bool) -> Option<()> {
        if self.is_fixed(p) {
            self.base = Some(p);
            return Some(());
        }
        let i = p.as_inst()?;
        let InstKind::Gep {
            args: [b, x],
            stride,
        } = *self.f.kind(i)
        else {
            return None;
        };
        if !top {
            // A base address that serves others too stays: each address taken apart from it
            // would hold a pointer of its own where it shared the base (a row pointer that
            // other loops index as well).
            if self.f.uses(p).len() != 1 {
                return None;
            }
            self.parts.push(i);
        }
        self.pointer(b, false)?;
        self.index(x, stride, false)
    }

    /// Whether `gep` is `gep F, i` or `gep (gep F, i), c` with `F` fixed for the loop and
    /// `i` its counter: what `rebuild` would make of it.
    fn is_canonical(&self, gep: Inst) -> bool {
        let row = |v: Value| match v.as_inst().map(|i| self.f.kind(i)) {
            Some(&InstKind::Gep { args: [b, x], .. }) => self.is_fixed(b) && self.is_counter(x),
            _ => false,
        };
        match *self.f.kind(gep) {
            InstKind::Gep {
                args: [b, Value::Int(_)],
                stride: 1,
            } => row(b),
            InstKind::Gep { args: [b, x], .. } => self.is_fixed(b) && self.is_counter(x),
            _ => false,
        }
    }

    /// The terms of the index `x`, counted `stride` bytes each, subtracted where `negated`.
    fn index(&mut self, x: Value, stride: u32, negated: bool) -> Option<()> {
        if let Value::Int(c) = x {
            let bytes = c.wrapping_mul(stride as i32);
            self.bytes = if negated {
                self.bytes.wrapping_sub(bytes)
            } else {
                self.bytes.wrapping_add(bytes)
            };
            return Some(());
        }
        if self.is_counter(x) {
            if self.counter.is_some() {
                return None;
            }
            self.counter = Some(Term {
                value: x,
                stride,
                negated,
            });
            return Some(());
        }
        if self.is_fixed(x) {
            self.fixed.push(Term {
                value: x,
                stride,
                negated,
            });
            return Some(());
        }
        let i = x.as_inst()?;
        let InstKind::Binary {
            op: op @ (BinaryOp::Add | BinaryOp::Sub),
            args: [a, b],
        } = *self.f.kind(i)
        else {
            return None;
        };
        let next_counter = op == BinaryOp::Add
            && ((a.is_constant() && self.is_counter(b)) || (b.is_constant() && self.is_counter(a)));
        if !next_counter && !self.only_in_addresses(i, 0) {
            return None;
        }
        self.parts.push(i);
        self.index(a, stride, negated)?;
        self.index(b, stride, negated != (op == BinaryOp::Sub))
    }
}

/// Makes `gep` `gep (gep F, i), bytes`, `F` the base plus the fixed terms, computed at the
/// end of `preheader`; the parts nothing else reads go.
fn rebuild(f: &mut Function, preheader: crate::ir::Block, gep: Inst, address: Address) {
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let mut fixed = address.base;
    for term in address.fixed {
        let x = if term.negated {
            let kind = InstKind::Binary {
                op: BinaryOp::Sub,
                args: [Value::Int(0), term.value],
            };
            Value::Inst(f.insert_inst_before(end, kind, Type::I32))
        } else {
            term.value
        };
        let kind = InstKind::Gep {
            args: [fixed, x],
            stride: term.stride,
        };
        fixed = Value::Inst(f.insert_inst_before(end, kind, Type::Ptr));
    }
    let counter = if address.counter.negated {
        let kind = InstKind::Binary {
            op: BinaryOp::Sub,
            args: [Value::Int(0), address.counter.value],
        };
        Value::Inst(f.insert_inst_before(gep, kind, Type::I32))
    } else {
        address.counter.value
    };
    let row = InstKind::Gep {
        args: [fixed, counter],
        stride: address.counter.stride,
    };
    if address.bytes == 0 {
        f.replace_kind(gep, row, Type::Ptr);
    } else {
        let row = f.insert_inst_before(gep, row, Type::Ptr);
        let kind = InstKind::Gep {
            args: [Value::Inst(row), Value::Int(address.bytes)],
            stride: 1,
        };
        f.replace_kind(gep, kind, Type::Ptr);
    }
    for part in address.parts {
        if f.inst_block(part).is_some() && f.uses(Value::Inst(part)).is_empty() {
            f.remove_inst(part);
        }
    }
}
