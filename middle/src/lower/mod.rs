//! Lowering of the checked tree to IR. Every local lives in an entry-block `alloca` (mem2reg
//! promotes the scalars later); `&&` and `||` become control flow; statements after a
//! `return`, `break` or `continue` are unreachable and not lowered at all.

mod expr;
mod stmt;

use crate::ir::{Block, FuncId, Function, Global, GlobalId, InstKind, Module, Type, Value};
use frontend::consteval::ConstValue;
use frontend::hir;
use frontend::types::Type as HirType;

pub fn lower_program(p: &hir::Program) -> Module {
    let mut m = Module {
        globals: p.globals.iter().map(lower_global).collect(),
        strings: Vec::new(),
        functions: Vec::new(),
    };
    for f in &p.functions {
        let lowered = FnLower::lower(p, &mut m, f);
        m.functions.push(lowered);
    }
    m
}

/// The IR type of a value of this checked type (arrays are passed as pointers).
fn value_type(t: &HirType) -> Type {
    match t {
        HirType::Void => Type::Void,
        HirType::Int => Type::I32,
        HirType::Float => Type::F32,
        HirType::Array(..) | HirType::Pointer(..) => Type::Ptr,
    }
}

pub fn const_bits(v: ConstValue) -> u32 {
    match v {
        ConstValue::Int(x) => x as u32,
        ConstValue::Float(x) => x.to_bits(),
    }
}

pub fn const_value(v: ConstValue) -> Value {
    match v {
        ConstValue::Int(x) => Value::Int(x),
        ConstValue::Float(x) => Value::float(x),
    }
}

fn lower_global(g: &hir::Global) -> Global {
    let (elem, len) = match &g.ty {
        HirType::Array(e, dims) => (Type::scalar(*e), dims.iter().product()),
        HirType::Float => (Type::F32, 1),
        _ => (Type::I32, 1),
    };
    Global {
        name: g.name.clone(),
        elem,
        len,
        init: g.init.iter().map(|(i, v)| (*i, const_bits(*v))).collect(),
        is_const: g.is_const,
    }
}

/// Lowers one function.
struct FnLower<'a> {
    prog: &'a hir::Program,
    module: &'a mut Module,
    hir: &'a hir::Function,
    f: Function,
    /// The block being filled; `None` after a terminator, when code is unreachable.
    cur: Option<Block>,
    /// The address of each local's stack slot.
    slots: Vec<Value>,
    /// (continue target, break target) of the enclosing loops.
    loops: Vec<(Block, Block)>,
    /// How many branches lead to each block so far.
    preds: Vec<u32>,
}

impl<'a> FnLower<'a> {
    fn lower(prog: &'a hir::Program, module: &'a mut Module, hir: &'a hir::Function) -> Function {
        let params = hir
            .params
            .iter()
            .map(|&l| value_type(&hir.locals[l].ty))
            .collect();
        let mut f = Function::new(hir.name.clone(), params, value_type(&hir.ret));
        let entry = f.add_block();
        let mut this = FnLower {
            prog,
            module,
            hir,
            f,
            cur: Some(entry),
            slots: Vec::new(),
            loops: Vec::new(),
            preds: Vec::new(),
        };
        for local in &hir.locals {
            let (elem, count) = match &local.ty {
                HirType::Array(e, dims) => (Type::scalar(*e), dims.iter().product()),
                other => (value_type(other), 1),
            };
            let slot = this.emit(InstKind::Alloca { elem, count }, Type::Ptr);
            this.slots.push(slot);
        }
        for (n, &l) in hir.params.iter().enumerate() {
            let slot = this.slots[l];
            this.emit(
                InstKind::Store {
                    args: [Value::Param(n as u32), slot],
                },
                Type::Void,
            );
        }
        this.stmts(&hir.body);
        if this.cur.is_some() {
            // Falling off the end: `main` returns 0 as in C; other functions return zero too,
            // so that the behaviour is deterministic.
            let value = match this.f.ret {
                Type::I32 => Some(Value::Int(0)),
                Type::F32 => Some(Value::float(0.0)),
                _ => None,
            };
            this.terminate(InstKind::Ret { args: value });
        }
        this.f
    }

    /// Appends an instruction to the current block.
    fn emit(&mut self, kind: InstKind, ty: Type) -> Value {
        let b = self
            .cur
            .expect("code is emitted only into a reachable block");
        Value::Inst(self.f.append_inst(b, kind, ty))
    }

    /// Ends the current block; what follows is unreachable until `switch_to`.
    fn terminate(&mut self, kind: InstKind) {
        for &t in kind.targets() {
            if self.preds.len() <= t.index() {
                self.preds.resize(t.index() + 1, 0);
            }
            self.preds[t.index()] += 1;
        }
        self.emit(kind, Type::Void);
        self.cur = None;
    }

    fn br(&mut self, target: Block) {
        self.terminate(InstKind::Br { targets: [target] });
    }

    /// Continues in `b` if any branch leads to it, placing it in the layout; returns whether
    /// it is reachable.
    fn switch_to(&mut self, b: Block) -> bool {
        debug_assert!(self.cur.is_none());
        let reachable = self.preds.get(b.index()).is_some_and(|&n| n > 0);
        if reachable {
            self.f.append_block(b);
            self.cur = Some(b);
        }
        reachable
    }

    fn global_id(&self, g: hir::GlobalId) -> Value {
        Value::Global(GlobalId(g as u32))
    }

    fn func_id(&self, f: hir::FuncId) -> FuncId {
        FuncId(f as u32)
    }
}
