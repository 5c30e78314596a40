//! Sparse conditional constant propagation, after Wegman and Zadeck ("Constant Propagation
//! with Conditional Branches", TOPLAS 13(2), 1991). Every instruction's result starts
//! unknown and can only go down the lattice unknown > constant > overdefined; every CFG
//! edge starts not executable. Two worklists drive the solver: one of CFG edges that just
//! became executable (a block reached for the first time evaluates all its instructions,
//! a new edge into a reached block only its phis) and one of instructions whose value just
//! went down (their users in reached blocks are evaluated again). A phi meets only the
//! values flowing in along executable edges; a conditional branch on a constant marks only
//! the edge it takes. Instructions are evaluated by const-fold's `simplify_kind` (so by
//! `ir::semantics`, identities such as `x * 0` included) with the constants the solver
//! knows in place of their operands.
//!
//! Afterwards constant results replace their instructions, conditional branches that
//! reached only one of their two targets become jumps, phis lose the pairs of edges that
//! never executed, and blocks never reached are deleted.
//!
//! Undefined values: an `undef` incoming value of a phi is unknown, so the phi takes the
//! other incoming values alone (`phi [undef, a], [5, b]` is 5, a value `undef` may take).
//! An `undef` operand of any other instruction is overdefined: folding `mul undef, 2` to an
//! arbitrary constant would claim a value it cannot have. A value stays unknown only while
//! something it depends on is unknown, so once the worklists are empty, an instruction
//! still unknown in a reached block depends on `undef` through phis alone: every such phi
//! becomes `undef`, every other such instruction is made overdefined and a branch on it
//! reaches both targets, and the solver runs on until nothing is unknown but those phis.
//! Loads, calls, allocas, geps and parameters are overdefined.
//!
//! Needs: nothing. Preserves: behaviour; the CFG when no branch folds and every block is
//! reached.

use crate::analysis::Preserved;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::simplify::simplify_kind;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let Some(entry) = f.entry() else {
        return Preserved::All;
    };
    let mut solver = Solver::new(f);
    solver.solve(f, entry);
    solver.rewrite(f)
}

/// What the solver knows about a value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lattice {
    /// Not determined yet (or `undef`).
    Unknown,
    Constant(Value),
    /// Not one constant.
    Overdefined,
}

impl Lattice {
    fn meet(self, other: Lattice) -> Lattice {
        match (self, other) {
            (Lattice::Unknown, x) | (x, Lattice::Unknown) => x,
            (Lattice::Constant(a), Lattice::Constant(b)) if a == b => self,
            _ => Lattice::Overdefined,
        }
    }
}

struct Solver {
    /// Per instruction.
    value: Vec<Lattice>,
    /// Per block: whether some executable edge (or the function's start) reaches it.
    reached: Vec<bool>,
    /// Reached blocks, in the order they were reached.
    reached_order: Vec<Block>,
    /// Per block: the targets its executable out-edges lead to.
    edges: Vec<[Option<Block>; 2]>,
    cfg_work: Vec<(Block, Block)>,
    ssa_work: Vec<Inst>,
}

impl Solver {
    fn new(f: &Function) -> Solver {
        Solver {
            value: vec![Lattice::Unknown; f.inst_capacity()],
            reached: vec![false; f.block_capacity()],
            reached_order: Vec::new(),
            edges: vec![[None; 2]; f.block_capacity()],
            cfg_work: Vec::new(),
            ssa_work: Vec::new(),
        }
    }

    fn is_executable(&self, from: Block, to: Block) -> bool {
        self.edges[from.index()].contains(&Some(to))
    }

    /// Marks the edge executable; false if it already was.
    fn mark_edge(&mut self, from: Block, to: Block) -> bool {
        let slots = &mut self.edges[from.index()];
        if slots.contains(&Some(to)) {
            return false;
        }
        let free = slots.iter_mut().find(|s| s.is_none());
        *free.expect("a terminator has at most two targets") = Some(to);
        true
    }

    fn solve(&mut self, f: &Function, entry: Block) {
        self.reach(f, entry);
        loop {
            if let Some((from, to)) = self.cfg_work.pop() {
                if !self.mark_edge(from, to) {
                    continue;
                }
                if self.reached[to.index()] {
                    for phi in f.phis(to) {
                        self.visit(f, phi);
                    }
                } else {
                    self.reach(f, to);
                }
            } else if let Some(i) = self.ssa_work.pop() {
                for u in f.uses(Value::Inst(i)) {
                    if f.inst_block(u.inst)
                        .is_some_and(|b| self.reached[b.index()])
                    {
                        self.visit(f, u.inst);
                    }
                }
            } else if !self.resolve_unknowns(f) {
                return;
            }
        }
    }

    fn reach(&mut self, f: &Function, b: Block) {
        self.reached[b.index()] = true;
        self.reached_order.push(b);
        for i in f.block_insts(b) {
            self.visit(f, i);
        }
    }

    /// Lowers the value of `i` to its meet with `new`, queueing its users if it changed.
    fn lower(&mut self, i: Inst, new: Lattice) {
        let old = self.value[i.index()];
        let met = old.meet(new);
        if met != old {
            self.value[i.index()] = met;
            self.ssa_work.push(i);
        }
    }

    /// What is known of an operand; `undef` counts as unknown (see the header).
    fn operand(&self, v: Value) -> Lattice {
        match v {
            Value::Inst(i) => self.value[i.index()],
            Value::Int(_) | Value::Bool(_) | Value::Float(_) => Lattice::Constant(v),
            Value::Undef(_) => Lattice::Unknown,
            Value::Param(_) | Value::Global(_) => Lattice::Overdefined,
        }
    }

    fn visit(&mut self, f: &Function, i: Inst) {
        let b = f
            .inst_block(i)
            .expect("visited instructions are in the layout");
        match f.kind(i) {
            InstKind::Phi { args, blocks } => {
                let mut v = Lattice::Unknown;
                for (&x, &from) in args.iter().zip(blocks) {
                    if self.is_executable(from, b) {
                        v = v.meet(self.operand(x));
                    }
                }
                self.lower(i, v);
            }
            &InstKind::Br { targets: [to] } => self.cfg_work.push((b, to)),
            &InstKind::CondBr {
                args: [c],
                targets: [yes, no],
            } => match self.operand(c) {
                Lattice::Unknown => {}
                Lattice::Constant(Value::Bool(true)) => self.cfg_work.push((b, yes)),
                Lattice::Constant(Value::Bool(false)) => self.cfg_work.push((b, no)),
                _ => self.cfg_work.extend([(b, yes), (b, no)]),
            },
            InstKind::Ret { .. } => {}
            &InstKind::Select { args: [c, x, y] } => {
                let v = match self.operand(c) {
                    Lattice::Unknown => return,
                    Lattice::Constant(Value::Bool(true)) => self.operand(x),
                    Lattice::Constant(Value::Bool(false)) => self.operand(y),
                    _ => self.operand(x).meet(self.operand(y)),
                };
                self.lower(i, v);
            }
            InstKind::Binary { .. }
            | InstKind::FNeg { .. }
            | InstKind::Ctz { .. }
            | InstKind::Icmp { .. }
            | InstKind::Fcmp { .. }
            | InstKind::Cast { .. } => {
                if let Some(v) = self.evaluate(f, i) {
                    self.lower(i, v);
                }
            }
            InstKind::Alloca { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Gep { .. }
            | InstKind::Call { .. } => self.lower(i, Lattice::Overdefined),
            // Vectors have no constants.
            InstKind::VLoad { .. }
            | InstKind::VStore { .. }
            | InstKind::VBinary { .. }
            | InstKind::Splat { .. }
            | InstKind::ExtractLane { .. }
            | InstKind::InsertLane { .. }
            | InstKind::Reduce { .. } => self.lower(i, Lattice::Overdefined),
        }
    }

    /// The value of an arithmetic instruction from what is known of its operands; `None`
    /// while one of them is unknown.
    fn evaluate(&self, f: &Function, i: Inst) -> Option<Lattice> {
        let mut kind = f.kind(i).clone();
        for v in kind.operands_mut() {
            match self.operand(*v) {
                Lattice::Unknown if !matches!(v, Value::Undef(_)) => return None,
                Lattice::Constant(c) => *v = c,
                _ => {}
            }
        }
        Some(match simplify_kind(&kind, f.inst(i).ty) {
            Some(c) if c.is_constant() => Lattice::Constant(c),
            _ => Lattice::Overdefined,
        })
    }

    /// With both worklists empty: makes every instruction still unknown in a reached block
    /// overdefined, except phis, and lets branches on unknown conditions reach both
    /// targets (see the header). Returns whether that gave the worklists anything.
    fn resolve_unknowns(&mut self, f: &Function) -> bool {
        let mut progress = false;
        for k in 0..self.reached_order.len() {
            let b = self.reached_order[k];
            for i in f.block_insts(b) {
                match *f.kind(i) {
                    InstKind::Phi { .. } => {}
                    InstKind::CondBr {
                        args: [c],
                        targets: [yes, no],
                    } => {
                        if self.operand(c) == Lattice::Unknown {
                            for to in [yes, no] {
                                if !self.is_executable(b, to) {
                                    self.cfg_work.push((b, to));
                                    progress = true;
                                }
                            }
                        }
                    }
                    _ => {
                        if f.inst(i).ty != Type::Void && self.value[i.index()] == Lattice::Unknown {
                            self.lower(i, Lattice::Overdefined);
                            progress = true;
                        }
                    }
                }
            }
        }
        progress
    }

    /// Applies what the solver found.
    fn rewrite(self, f: &mut Function) -> Preserved {
        let mut changed = false;
        let mut cfg_changed = false;
        for &b in &self.reached_order {
            for i in f.block_insts(b).collect::<Vec<_>>() {
                let ty = f.inst(i).ty;
                let replacement = match self.value[i.index()] {
                    Lattice::Constant(c) => c,
                    Lattice::Unknown if f.kind(i).is_phi() => Value::Undef(ty),
                    _ => continue,
                };
                f.replace_all_uses(Value::Inst(i), replacement);
                f.remove_inst(i);
                changed = true;
            }
        }
        for &b in &self.reached_order {
            let Some(t) = f.terminator(b) else { continue };
            let InstKind::CondBr {
                targets: [yes, no], ..
            } = *f.kind(t)
            else {
                continue;
            };
            let taken = match (self.is_executable(b, yes), self.is_executable(b, no)) {
                (true, false) => yes,
                (false, true) => no,
                _ => continue,
            };
            f.replace_kind(t, InstKind::Br { targets: [taken] }, Type::Void);
            cfg_changed = true;
        }
        for &b in &self.reached_order {
            self.drop_dead_incoming(f, b);
        }
        let dead: Vec<Block> = f.blocks().filter(|b| !self.reached[b.index()]).collect();
        for &b in &dead {
            for i in f.block_insts(b).collect::<Vec<_>>() {
                let ty = f.inst(i).ty;
                if ty != Type::Void {
                    f.replace_all_uses(Value::Inst(i), Value::Undef(ty));
                }
            }
        }
        for &b in &dead {
            f.remove_block(b);
        }
        if cfg_changed || !dead.is_empty() {
            Preserved::Nothing
        } else {
            Preserved::cfg_if(changed)
        }
    }

    /// Removes from the phis of `b` the pairs of edges that never executed.
    fn drop_dead_incoming(&self, f: &mut Function, b: Block) {
        let phis: Vec<Inst> = f.phis(b).collect();
        for phi in phis {
            let InstKind::Phi { args, blocks } = f.kind(phi) else {
                continue;
            };
            if blocks.iter().all(|&p| self.is_executable(p, b)) {
                continue;
            }
            let (args, blocks) = args
                .iter()
                .zip(blocks)
                .filter(|&(_, &p)| self.is_executable(p, b))
                .map(|(&v, &p)| (v, p))
                .unzip();
            let ty = f.inst(phi).ty;
            f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
        }
    }
}
