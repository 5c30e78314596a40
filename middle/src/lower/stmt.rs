//! Statements: assignments, local initialisers, structured control flow.

use super::{const_bits, const_value, FnLower};
use crate::ir::{BinaryOp, Callee, Global, GlobalId, InstKind, IntPred, Type, Value};
use frontend::hir::{Expr, LocalId, LocalInit, Stmt};
use frontend::types::Type as HirType;

/// Arrays up to this many elements are initialised element by element; larger ones are
/// cleared with `memset` first and then get only their nonzero elements.
const SMALL_ARRAY: u32 = 16;

/// An initialiser with at least this many nonzero constant elements is copied by a loop
/// from a constant table (a hidden global), so that its code stays the same size however
/// long it is, instead of one store per element.
const COPY_FROM_TABLE: usize = 256;

impl FnLower<'_> {
    pub(super) fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            if self.cur.is_none() {
                return;
            }
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Init(local, init) => self.init(*local, init),
            Stmt::Assign(place, e) => {
                let addr = self.place_addr(place);
                let v = self.expr(e);
                self.emit(InstKind::Store { args: [v, addr] }, Type::Void);
            }
            Stmt::Expr(e) => {
                self.expr(e);
            }
            Stmt::Block(body) => self.stmts(body),
            Stmt::If(cond, then, otherwise) => {
                let then_bb = self.f.create_block();
                let join = self.f.create_block();
                let else_bb = if otherwise.is_empty() {
                    join
                } else {
                    self.f.create_block()
                };
                self.cond_branch(cond, then_bb, else_bb);
                if self.switch_to(then_bb) {
                    self.stmts(then);
                    if self.cur.is_some() {
                        self.br(join);
                    }
                }
                if else_bb != join && self.switch_to(else_bb) {
                    self.stmts(otherwise);
                    if self.cur.is_some() {
                        self.br(join);
                    }
                }
                self.switch_to(join);
            }
            Stmt::While(cond, body) => {
                let header = self.f.create_block();
                let body_bb = self.f.create_block();
                let exit = self.f.create_block();
                self.br(header);
                self.switch_to(header);
                self.cond_branch(cond, body_bb, exit);
                if self.switch_to(body_bb) {
                    self.loops.push((header, exit));
                    self.stmts(body);
                    self.loops.pop();
                    if self.cur.is_some() {
                        self.br(header);
                    }
                }
                self.switch_to(exit);
            }
            Stmt::Break => {
                let (_, exit) = *self.loops.last().expect("checked: break inside a loop");
                self.br(exit);
            }
            Stmt::Continue => {
                let (header, _) = *self.loops.last().expect("checked: continue inside a loop");
                self.br(header);
            }
            Stmt::Return(value) => {
                let v = value.as_ref().map(|e| self.expr(e));
                self.terminate(InstKind::Ret { args: v });
            }
        }
    }

    fn init(&mut self, local: LocalId, init: &LocalInit) {
        let slot = self.slots[local];
        match init {
            LocalInit::Scalar(e) => {
                let v = self.expr(e);
                self.emit(InstKind::Store { args: [v, slot] }, Type::Void);
            }
            LocalInit::Array(elems) => {
                let HirType::Array(elem, dims) = &self.hir.locals[local].ty else {
                    unreachable!("checked: array initialiser for an array")
                };
                let len: u32 = dims.iter().product();
                let zero = const_value(frontend::consteval::ConstValue::zero(*elem));
                let elem_ty = Type::scalar(*elem);
                let constants = elems.iter().filter(|(_, e)| nonzero_const(e)).count();
                if constants >= COPY_FROM_TABLE {
                    self.copy_from_table(slot, elems, len, elem_ty);
                    return;
                }
                let mut next = 0;
                let small = len <= SMALL_ARRAY;
                if !small {
                    let bytes = Value::Int((len * elem_ty.bytes()) as i32);
                    self.emit(
                        InstKind::Call {
                            callee: Callee::Memset,
                            args: vec![slot, Value::Int(0), bytes],
                        },
                        Type::Void,
                    );
                }
                for (index, e) in elems {
                    if small {
                        for gap in next..*index {
                            self.store_element(slot, gap, zero, elem_ty);
                        }
                    }
                    let v = self.expr(e);
                    let is_zero = matches!(v, Value::Int(0)) || v == Value::float(0.0);
                    if small || !is_zero {
                        self.store_element(slot, *index, v, elem_ty);
                    }
                    next = index + 1;
                }
                if small {
                    for gap in next..len {
                        self.store_element(slot, gap, zero, elem_ty);
                    }
                }
            }
        }
    }

    /// Initialises the array at `slot` by copying a constant table of its constant elements
    /// (zeros included) in a loop, then storing the others in order.
    fn copy_from_table(&mut self, slot: Value, elems: &[(u32, Expr)], len: u32, elem: Type) {
        let init = elems
            .iter()
            .filter_map(|(i, e)| e.as_const().map(|v| (*i, v)))
            .filter(|(_, v)| !v.is_zero_bits())
            .map(|(i, v)| (i, const_bits(v)))
            .collect();
        let table = GlobalId(self.module.globals.len() as u32);
        self.module.globals.push(Global {
            name: format!("{}.init.{}", self.hir.name, table.0),
            elem,
            len,
            init,
            is_const: true,
        });
        self.copy_loop(slot, Value::Global(table), len, elem);
        for (index, e) in elems.iter().filter(|(_, e)| e.as_const().is_none()) {
            let v = self.expr(e);
            self.store_element(slot, *index, v, elem);
        }
    }

    /// `for (i = 0; i < len; i++) dst[i] = src[i];` over elements of type `elem`.
    fn copy_loop(&mut self, dst: Value, src: Value, len: u32, elem: Type) {
        let before = self.cur.expect("an initialiser is reached");
        let header = self.f.create_block();
        let body = self.f.create_block();
        let exit = self.f.create_block();
        self.br(header);
        self.switch_to(header);
        let i = self.emit(
            InstKind::Phi {
                args: vec![Value::Int(0)],
                blocks: vec![before],
            },
            Type::I32,
        );
        let more = self.emit(
            InstKind::Icmp {
                pred: IntPred::Slt,
                args: [i, Value::Int(len as i32)],
            },
            Type::I1,
        );
        self.terminate(InstKind::CondBr {
            args: [more],
            targets: [body, exit],
        });
        self.switch_to(body);
        let stride = elem.bytes();
        let from = self.emit(
            InstKind::Gep {
                args: [src, i],
                stride,
            },
            Type::Ptr,
        );
        let v = self.emit(InstKind::Load { args: [from] }, elem);
        let to = self.emit(
            InstKind::Gep {
                args: [dst, i],
                stride,
            },
            Type::Ptr,
        );
        self.emit(InstKind::Store { args: [v, to] }, Type::Void);
        let next = self.emit(
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [i, Value::Int(1)],
            },
            Type::I32,
        );
        self.br(header);
        let Value::Inst(phi) = i else {
            unreachable!("a phi is an instruction")
        };
        self.f.add_phi_incoming(phi, next, body);
        self.switch_to(exit);
    }

    fn store_element(&mut self, base: Value, index: u32, v: Value, elem: Type) {
        let addr = self.emit(
            InstKind::Gep {
                args: [base, Value::Int(index as i32)],
                stride: elem.bytes(),
            },
            Type::Ptr,
        );
        self.emit(InstKind::Store { args: [v, addr] }, Type::Void);
    }
}

/// Whether `e` is a constant other than zero (a float -0.0 counts: its bits are not zero).
fn nonzero_const(e: &Expr) -> bool {
    e.as_const().is_some_and(|v| !v.is_zero_bits())
}
