//! Checks a module's invariants: every block ends in exactly one terminator, phis come first
//! and match their block's predecessors, operand and result types agree, every definition
//! dominates its uses, and the stored use lists are exact. It takes time about linear in
//! the function (the use lists are compared sorted); value names for messages are worked out
//! only once something is wrong.

use super::entities::{Block, Inst, Value};
use super::function::Function;
use super::instructions::{Callee, InstKind};
use super::module::Module;
use super::printer::{print_inst, Names};
use super::types::Type;
use crate::analysis::{Cfg, DomTree};
use sysy_runtime::{RuntimeFn, RuntimeParam};

/// `position` of an instruction that is in no block of the layout.
const NOT_PLACED: u32 = u32::MAX;

/// Verifies every function; the error lists each problem found.
pub fn verify_module(m: &Module) -> Result<(), String> {
    let errors: Vec<String> = m
        .functions
        .iter()
        .flat_map(|f| verify_function(m, f))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// The problems found in one function (empty when it is well formed).
pub fn verify_function(m: &Module, f: &Function) -> Vec<String> {
    let mut v = Verifier {
        m,
        f,
        names: None,
        errors: Vec::new(),
    };
    v.run();
    v.errors
}

struct Verifier<'a> {
    m: &'a Module,
    f: &'a Function,
    /// Printing names, computed for the first message.
    names: Option<Names>,
    errors: Vec<String>,
}

impl Verifier<'_> {
    fn names(&mut self) -> &Names {
        self.names.get_or_insert_with(|| Names::new(self.f))
    }

    fn error(&mut self, at: Option<Inst>, msg: impl AsRef<str>) {
        let (m, f) = (self.m, self.f);
        let place = match at {
            Some(i) => format!(" at `{}`", print_inst(m, f, self.names(), i)),
            None => String::new(),
        };
        self.errors
            .push(format!("@{}{place}: {}", self.f.name, msg.as_ref()));
    }

    fn run(&mut self) {
        let f = self.f;
        let Some(entry) = f.entry() else {
            self.error(None, "function has no blocks");
            return;
        };
        if f.params.iter().chain([&f.ret]).any(|t| t.is_vector()) {
            self.error(None, "functions take and return scalars, not vectors");
        }
        let cfg = Cfg::new(f);
        if !cfg.preds(entry).is_empty() {
            self.error(None, "the entry block has predecessors");
        }
        let dom = DomTree::new(&cfg);
        // The position of each instruction of the layout in its block.
        let mut position = vec![NOT_PLACED; f.inst_capacity()];
        for b in f.blocks() {
            for (n, i) in f.block_insts(b).enumerate() {
                position[i.index()] = n as u32;
            }
        }
        for b in f.blocks() {
            self.check_block(b, &cfg);
        }
        for b in f.blocks() {
            for i in f.block_insts(b) {
                self.check_types(i);
                if cfg.is_reachable(b) {
                    self.check_dominance(i, b, &dom, &position);
                }
            }
        }
        self.check_use_lists();
    }

    fn check_block(&mut self, b: Block, cfg: &Cfg) {
        let f = self.f;
        let insts: Vec<Inst> = f.block_insts(b).collect();
        let Some(&last) = insts.last() else {
            let name = self.names().block(b);
            self.error(None, format!("{name} is empty"));
            return;
        };
        if !f.kind(last).is_terminator() {
            let name = self.names().block(b);
            self.error(Some(last), format!("{name} does not end in a terminator"));
        }
        let mut preds = cfg.preds(b).to_vec();
        preds.sort();
        let mut seen_non_phi = false;
        for &i in &insts {
            let kind = f.kind(i);
            if kind.is_terminator() && i != last {
                self.error(Some(i), "terminator in the middle of a block");
            }
            if kind.is_phi() {
                if seen_non_phi {
                    self.error(Some(i), "phi after a non-phi instruction");
                }
            } else {
                seen_non_phi = true;
            }
            for &t in kind.targets() {
                if !f.is_in_layout(t) {
                    self.error(Some(i), "branch to a block that is not in the function");
                }
            }
            if let InstKind::Phi { blocks, .. } = kind {
                let mut incoming = blocks.clone();
                incoming.sort();
                if incoming != preds {
                    self.error(
                        Some(i),
                        "phi's incoming blocks differ from the block's predecessors",
                    );
                }
            }
        }
    }

    fn check_types(&mut self, i: Inst) {
        let f = self.f;
        let data = f.inst(i);
        let ty = |v: &Value| f.value_type(*v);
        for v in data.kind.operands() {
            match *v {
                Value::Inst(d) if f.inst_block(d).is_none() => {
                    self.error(Some(i), "operand is a removed instruction");
                }
                Value::Param(p) if p as usize >= f.params.len() => {
                    self.error(Some(i), "operand is a parameter that does not exist");
                }
                Value::Global(g) if g.index() >= self.m.globals.len() => {
                    self.error(Some(i), "operand is a global that does not exist");
                }
                Value::Undef(Type::Void) => self.error(Some(i), "undefined operand of type void"),
                _ => {}
            }
        }
        let expect = |ok: bool, this: &mut Self, what: &str| {
            if !ok {
                this.error(Some(i), format!("type mismatch: {what}"));
            }
        };
        match &data.kind {
            InstKind::Alloca { elem, count } => {
                expect(
                    matches!(elem, Type::I32 | Type::F32 | Type::Ptr) && *count > 0,
                    self,
                    "alloca needs i32, f32 or ptr elements and a positive count",
                );
                expect(data.ty == Type::Ptr, self, "alloca gives a ptr");
            }
            InstKind::Load { args: [p] } => {
                expect(ty(p) == Type::Ptr, self, "load reads through a ptr");
                expect(
                    matches!(data.ty, Type::I32 | Type::F32 | Type::Ptr),
                    self,
                    "load gives i32, f32 or ptr",
                );
            }
            InstKind::Store { args: [x, p] } => {
                expect(ty(p) == Type::Ptr, self, "store writes through a ptr");
                expect(
                    matches!(ty(x), Type::I32 | Type::F32 | Type::Ptr),
                    self,
                    "store writes i32, f32 or ptr",
                );
                expect(data.ty == Type::Void, self, "store gives no value");
            }
            InstKind::VLoad { args: [p] } => {
                expect(ty(p) == Type::Ptr, self, "vload reads through a ptr");
                expect(data.ty.is_vector(), self, "vload gives a vector");
            }
            InstKind::VStore { args: [x, p] } => {
                expect(ty(p) == Type::Ptr, self, "vstore writes through a ptr");
                expect(ty(x).is_vector(), self, "vstore writes a vector");
                expect(data.ty == Type::Void, self, "vstore gives no value");
            }
            InstKind::VBinary { op, args: [a, b] } => {
                let t = op.ty();
                if !(ty(a) == t && ty(b) == t && data.ty == t) {
                    expect(false, self, &format!("{} works on {t}", op.name()));
                }
            }
            InstKind::Splat { args: [x] } => {
                expect(
                    ty(x).vector() == Some(data.ty),
                    self,
                    "splat makes a vector of its operand's type",
                );
            }
            InstKind::ExtractLane { args: [x], .. } => {
                expect(
                    ty(x).is_vector() && data.ty == ty(x).element(),
                    self,
                    "extractlane gives a lane of a vector",
                );
            }
            InstKind::InsertLane { args: [x, y], .. } => {
                expect(
                    ty(x).is_vector() && data.ty == ty(x) && ty(y) == ty(x).element(),
                    self,
                    "insertlane puts a lane's value into a vector of its own type",
                );
            }
            InstKind::Reduce { op, args: [x] } => {
                if !(ty(x) == Type::V4I32 && data.ty == Type::I32) {
                    expect(
                        false,
                        self,
                        &format!("reduce {} makes a v4i32 an i32", op.name()),
                    );
                }
            }
            InstKind::Gep { args: [b, x], .. } => {
                expect(
                    ty(b) == Type::Ptr && ty(x) == Type::I32 && data.ty == Type::Ptr,
                    self,
                    "gep takes a ptr and an i32 and gives a ptr",
                );
            }
            InstKind::Binary { op, args: [a, b] } => {
                let t = op.ty();
                if !(ty(a) == t && ty(b) == t && data.ty == t) {
                    expect(false, self, &format!("{} works on {t}", op.name()));
                }
            }
            InstKind::Ctz { args: [a] } => {
                expect(
                    ty(a) == Type::I32 && data.ty == Type::I32,
                    self,
                    "ctz works on i32",
                );
            }
            InstKind::FNeg { args: [a] } => {
                expect(
                    ty(a) == Type::F32 && data.ty == Type::F32,
                    self,
                    "fneg works on f32",
                );
            }
            InstKind::Icmp { args: [a, b], .. } => {
                expect(
                    ty(a) == ty(b)
                        && matches!(ty(a), Type::I32 | Type::Ptr | Type::I1)
                        && data.ty == Type::I1,
                    self,
                    "icmp compares two i32, i1 or ptr values and gives an i1",
                );
            }
            InstKind::Fcmp { args: [a, b], .. } => {
                expect(
                    ty(a) == Type::F32 && ty(b) == Type::F32 && data.ty == Type::I1,
                    self,
                    "fcmp compares two f32 values and gives an i1",
                );
            }
            InstKind::Cast { op, args: [a] } => {
                let (from, to) = op.types();
                if !(ty(a) == from && data.ty == to) {
                    expect(
                        false,
                        self,
                        &format!("{} converts {from} to {to}", op.name()),
                    );
                }
            }
            InstKind::Select { args: [c, a, b] } => {
                expect(
                    ty(c) == Type::I1
                        && ty(a) == data.ty
                        && ty(b) == data.ty
                        && matches!(data.ty, Type::I1 | Type::I32 | Type::Ptr | Type::F32),
                    self,
                    "select takes an i1 and two i32, i1, ptr or f32 values of its own type",
                );
            }
            InstKind::Call { callee, args } => self.check_call(i, callee, args),
            InstKind::Phi { args, .. } => {
                let ok = args.iter().all(|a| ty(a) == data.ty) && data.ty != Type::Void;
                expect(ok, self, "phi's values must have the phi's type");
            }
            InstKind::Br { .. } => {}
            InstKind::CondBr { args: [c], .. } => {
                expect(ty(c) == Type::I1, self, "condbr needs an i1 condition");
            }
            InstKind::Ret { args } => {
                let got = args.map_or(Type::Void, |a| ty(&a));
                expect(
                    got == f.ret,
                    self,
                    "ret's value must have the function's return type",
                );
            }
        }
    }

    fn check_call(&mut self, i: Inst, callee: &Callee, args: &[Value]) {
        let f = self.f;
        let arg_types: Vec<Type> = args.iter().map(|a| f.value_type(*a)).collect();
        let result = f.inst(i).ty;
        let (params, ret): (Vec<Type>, Type) = match callee {
            Callee::Function(id) => match self.m.functions.get(id.index()) {
                Some(g) => (g.params.clone(), g.ret),
                None => {
                    self.error(Some(i), "call to a function that does not exist");
                    return;
                }
            },
            Callee::Runtime(r) => {
                let params = r
                    .params()
                    .iter()
                    .map(|p| match p {
                        RuntimeParam::Scalar(s) => Type::scalar(*s),
                        RuntimeParam::AnyArray(_) => Type::Ptr,
                    })
                    .collect();
                let ret = r.ret().map_or(Type::Void, Type::scalar);
                let params = match r {
                    RuntimeFn::StartTime | RuntimeFn::StopTime => vec![Type::I32],
                    _ => params,
                };
                (params, ret)
            }
            Callee::Putf(s) => {
                if *s as usize >= self.m.strings.len() {
                    self.error(Some(i), "putf with a format string that does not exist");
                }
                if !arg_types.iter().all(|t| matches!(t, Type::I32 | Type::F32)) {
                    self.error(Some(i), "putf takes i32 and f32 values");
                }
                if result != Type::Void {
                    self.error(Some(i), "putf gives no value");
                }
                return;
            }
            Callee::Memset => (vec![Type::Ptr, Type::I32, Type::I32], Type::Void),
            Callee::Memcpy => (vec![Type::Ptr, Type::Ptr, Type::I32], Type::Void),
        };
        if arg_types != params || result != ret {
            self.error(Some(i), "call does not match the callee's signature");
        }
    }

    fn check_dominance(&mut self, i: Inst, b: Block, dom: &DomTree, position: &[u32]) {
        let f = self.f;
        let kind = f.kind(i);
        let here = position[i.index()];
        for (k, v) in kind.operands().iter().enumerate() {
            let Value::Inst(d) = *v else { continue };
            let dpos = position[d.index()];
            let Some(db) = f.inst_block(d).filter(|_| dpos != NOT_PLACED) else {
                continue;
            };
            let ok = match kind {
                InstKind::Phi { blocks, .. } => {
                    let from = blocks[k];
                    !dom.is_reachable(from) || dom.dominates(db, from)
                }
                _ if db == b => dpos < here,
                _ => dom.dominates(db, b),
            };
            if !ok {
                self.error(Some(i), "use is not dominated by its definition");
            }
        }
    }

    /// Every stored use must name an operand of an instruction of the layout that holds
    /// the value, no operand twice, and there must be as many as such operands that hold
    /// an instruction or a parameter: then the stored lists are exactly the operands.
    fn check_use_lists(&mut self) {
        let f = self.f;
        // Where each instruction's operands start among all operands of the layout.
        let mut start = vec![NOT_PLACED; f.inst_capacity()];
        let (mut operands, mut tracked) = (0, 0);
        for inst in f.all_insts() {
            start[inst.index()] = operands;
            let values = f.kind(inst).operands();
            operands += values.len() as u32;
            tracked += values
                .iter()
                .filter(|v| matches!(v, Value::Inst(_) | Value::Param(_)))
                .count();
        }
        let mut seen = vec![false; operands as usize];
        let mut stored = 0;
        let mut consistent = true;
        let values = (0..f.inst_capacity() as u32)
            .map(|i| Value::Inst(Inst(i)))
            .chain((0..f.params.len() as u32).map(Value::Param));
        for v in values {
            for u in f.uses(v) {
                let first = start[u.inst.index()];
                let holds = first != NOT_PLACED
                    && f.kind(u.inst).operands().get(u.index as usize) == Some(&v);
                if !holds || std::mem::replace(&mut seen[(first + u.index) as usize], true) {
                    consistent = false;
                }
                stored += 1;
            }
        }
        if !consistent || stored != tracked {
            self.error(
                None,
                "stored use lists differ from the instructions' operands",
            );
        }
    }
}
