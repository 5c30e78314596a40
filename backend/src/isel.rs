//! Instruction selection: one IR function (SSA, critical edges split) to machine IR over
//! virtual registers. Phis become copies at the end of each predecessor, through fresh
//! temporaries so that they act in parallel. A compare used only by its block's branch is
//! emitted at the branch; a constant-offset or scaled-index address folds into the load or
//! store that uses it.

use crate::abi::{self, ArgKind, ArgLoc};
use crate::conditional_store::{conditional_store, ConditionalStore};
use crate::const_division::{self, DivPlan};
use crate::global_layout::{GlobalLayout, Section};
use crate::imm::{fits_offset, is_operand2, vfp_immediate};
use crate::mir::loops::{block_frequencies, LoopNest};
use crate::mir::*;
use crate::parallel_copy::sequentialize;
use crate::symbols::symbol;
use middle::analysis::ranges::Ranges;
use middle::analysis::{Cfg, DomTree, LoopInfo};
use middle::compare_chain::{link, plan, Form, Link};
use middle::cost_model;
use middle::fast_hash::FastHashMap;
use middle::ir::clamp::unsigned_clamp;
use middle::ir::{
    BinaryOp, Block, Callee, CastOp, FloatPred, Function, GlobalId, Inst, InstKind, IntPred,
    Module, Type, Value,
};
use std::cmp::Reverse;

pub fn select(m: &Module, f: &Function) -> MFunction {
    let cfg = Cfg::new(f);
    let dom = DomTree::new(f, &cfg);
    let loops = LoopInfo::new(f, &cfg, &dom);
    // Value ranges tell dividends that are never negative: only divisions by constants
    // ask, so functions without them skip the analysis.
    let divides = f.all_insts().any(|i| {
        matches!(*f.kind(i), InstKind::Binary { op: BinaryOp::SDiv | BinaryOp::SRem, args: [_, b] } if b.is_constant())
    });
    let ranges = divides.then(|| Ranges::new(f, &cfg));
    let mut s = Selector {
        m,
        f,
        mf: MFunction::new(symbol(&f.name), f.name == "main"),
        block_index: vec![MBlockId(u32::MAX); f.block_capacity()],
        inst_regs: vec![None; f.inst_capacity()],
        param_regs: Vec::new(),
        allocas: vec![None; f.inst_capacity()],
        skipped: vec![false; f.inst_capacity()],
        selected: vec![false; f.inst_capacity()],
        global_regs: vec![None; m.globals.len()],
        layout: GlobalLayout::new(m),
        anchors: [None; 3],
        anchoring: [true; 3],
        anchor_of: [None; 3],
        calls: f
            .all_insts()
            .any(|i| matches!(f.kind(i), InstKind::Call { .. })),
        block_indexed: FastHashMap::default(),
        cur: Vec::new(),
        loops: &loops,
        ranges: ranges.as_ref(),
        block: None,
        hoisted: vec![Vec::new(); f.block_capacity()],
        hoisted_consts: FastHashMap::default(),
        block_consts: FastHashMap::default(),
        hoisted_count: vec![0; f.block_capacity()],
        in_place: false,
        recurrent: false,
        nonnegative: false,
        flags: None,
        chains: vec![None; f.inst_capacity()],
        chain_flags: None,
    };
    s.run();
    s.mf
}

/// How many instructions after building a constant outside loops the same block may read
/// it again (`block_consts`).
const CONSTANT_REACH: usize = 24;

/// Constants are hoisted out of loops while fewer than this many hoisted ones live through
/// the loop: more would only be spilled again, and each lengthens the allocator's work.
const MAX_HOISTED: usize = 16;

/// How many uses of an operand `value_under` looks through for a select made before.
const MAX_USES_SEEN: usize = 16;

/// How many blocks `read_after` searches for a read of a select's operand.
const MAX_LIVENESS_BLOCKS: usize = 64;

/// How many joins' phis may stand between a select and the loop phi it keeps (`is_carried`).
const MAX_JOINS: usize = 3;

/// How many operations may stand between a value and the phi it comes back to round its
/// loop (`is_on_recurrence`), each way; how many uses it follows forward, and how many
/// operations it looks at backward, in all.
const MAX_RECURRENCE_STEPS: usize = 12;
const MAX_RECURRENCE_USES: usize = 64;
const MAX_RECURRENCE_OPERANDS: usize = 1024;

/// Constants in loops nested deeper than this stay where they are used, so that finding
/// the loops around a use costs a bounded walk.
const MAX_HOIST_DEPTH: usize = 32;

fn class_of(t: Type) -> RegClass {
    if t == Type::F32 {
        RegClass::Float
    } else {
        RegClass::Int
    }
}

fn arg_kind(t: Type) -> ArgKind {
    if t == Type::F32 {
        ArgKind::Float
    } else {
        ArgKind::Int
    }
}

/// The label of a `putf` format string.
pub fn string_label(index: u32) -> String {
    format!(".Lstr{index}")
}

struct Selector<'a> {
    m: &'a Module,
    f: &'a Function,
    mf: MFunction,
    /// The machine block of each block, by block index.
    block_index: Vec<MBlockId>,
    /// The virtual register of each instruction result, by instruction index, and of each
    /// parameter.
    inst_regs: Vec<Option<Reg>>,
    param_regs: Vec<Reg>,
    /// The stack object of each `alloca`, by instruction index.
    allocas: Vec<Option<u32>>,
    /// Instructions emitted elsewhere (compares at their branch) or folded into addresses,
    /// by instruction index.
    skipped: Vec<bool>,
    /// The instructions emitted so far, by index.
    selected: Vec<bool>,
    /// The register holding the address of each global used more than once, set in the
    /// entry block (rematerialised at its uses if it is spilled), by global index.
    global_regs: Vec<Option<Reg>>,
    /// Where the globals lie, and the register holding each section's anchor where the
    /// function reaches globals from it (by `Section` index), set in the entry block.
    layout: GlobalLayout,
    anchors: [Option<Reg>; 3],
    /// Whether the function reaches the globals of each section from its anchor
    /// (`choose_anchors`).
    anchoring: [bool; 3],
    /// The global the function reaches each section's globals from (`choose_anchors`).
    anchor_of: [Option<GlobalId>; 3],
    /// Whether the function makes a call (`keeps_addresses`).
    calls: bool,
    /// The anchor-indexed addresses computed in the current block, by section, index and
    /// shift: a second one with the same index reads the first one's register.
    block_indexed: FastHashMap<(Section, Value, u8), Reg>,
    cur: Vec<MInst>,
    loops: &'a LoopInfo,
    /// Value ranges, for functions that divide by a constant.
    ranges: Option<&'a Ranges>,
    /// The block being selected.
    block: Option<Block>,
    /// Constants used inside loops are materialised once, at the end of the preheader of
    /// the outermost loop around the use that has one (`preheaders_around`): these
    /// instructions, by preheader index, go before its branch. Allocation rematerialises
    /// them at their uses if the loop runs short of registers.
    hoisted: Vec<Vec<MInst>>,
    /// The register of each hoisted constant: by preheader, class and bits.
    hoisted_consts: FastHashMap<(Block, RegClass, u32), Reg>,
    /// The constants materialised in place in the current block so far, by class and
    /// bits, with the number of instructions the block had then: a use within
    /// `CONSTANT_REACH` instructions after reads the same register (two divisions by 3
    /// share their multiplier), a later one builds it again rather than keep it live
    /// through the block.
    block_consts: FastHashMap<(RegClass, u32), (Reg, usize)>,
    /// How many constants each preheader holds.
    hoisted_count: Vec<usize>,
    /// Set while constants are materialised where they are needed: while materialising
    /// one into a preheader, and for phi copies (moving a constant into a phi's register
    /// costs as much as moving a hoisted one there, without holding a register).
    in_place: bool,
    /// Set while selecting an instruction on a recurrence (`is_on_recurrence`): a division
    /// by a constant then reads its sign correction from the dividend, beside the multiply.
    recurrent: bool,
    /// Set while selecting a division or remainder by a constant whose dividend is never
    /// negative (`analysis::ranges`): its quotient needs no sign correction.
    nonnegative: bool,
    /// The operands of the fused comparison whose flags the block's instructions selected
    /// so far leave set: a select or branch on a comparison of the same two values, by any
    /// predicate, reads them again.
    flags: Option<Compared>,
    /// The compares that test each chain of comparisons tested in place
    /// (`middle::compare_chain`), by instruction index.
    chains: Vec<Option<Vec<Form>>>,
    /// The chain whose flags the block's instructions selected so far leave set.
    chain_flags: Option<Inst>,
}

impl Selector<'_> {
    fn run(&mut self) {
        let f = self.f;
        for b in f.blocks() {
            let id = self.mf.add_block(0);
            self.block_index[b.index()] = id;
        }
        for p in 0..f.params.len() as u32 {
            let r = self.mf.new_vreg(class_of(f.params[p as usize]));
            self.param_regs.push(r);
        }
        for i in f.all_insts() {
            let data = f.inst(i);
            match data.kind {
                InstKind::Alloca { elem, count } => {
                    let obj = self.mf.new_object(elem.bytes() * count);
                    self.allocas[i.index()] = Some(obj);
                }
                _ if data.ty != Type::Void => {
                    let r = self.mf.new_vreg(class_of(data.ty));
                    self.inst_regs[i.index()] = Some(r);
                }
                _ => {}
            }
        }
        self.choose_anchors();
        for i in f.all_insts() {
            if link(f, i).is_some() && self.is_chain_tested(i) {
                self.chains[i.index()] = plan(f, i, &|c| self.is_chain_tested(c));
            }
        }
        for i in f.all_insts() {
            if self.chains[i.index()].is_some()
                || self.is_fused_compare(i)
                || self.is_folded_gep(i)
                || self.is_folded_shift(i)
                || self.is_folded_negation(i)
                || self.is_folded_mul(i)
                || self.is_folded_float_mul(i)
                || self.is_folded_division(i)
                || self.is_predicated(i)
                || self.is_clamp_inner(i)
                || self.is_tested_mask(i)
            {
                self.skipped[i.index()] = true;
            }
            if let Some(store) = self.conditional_store(i) {
                self.skipped[store.select.index()] = true;
            }
        }
        for b in f.blocks().collect::<Vec<_>>() {
            self.block = Some(b);
            self.flags = None;
            self.block_consts.clear();
            self.block_indexed.clear();
            if Some(b) == f.entry() {
                self.receive_params();
                self.global_addresses();
            }
            let mut succs = Vec::new();
            for i in f.block_insts(b).collect::<Vec<_>>() {
                let kind = f.kind(i);
                if kind.is_terminator() {
                    self.phi_copies(b);
                    succs = self.terminator(i);
                } else if !kind.is_phi() && !self.skipped[i.index()] {
                    self.inst(i);
                    self.selected[i.index()] = true;
                }
            }
            let block = self.mf.block_mut(self.block_index[b.index()]);
            block.insts = std::mem::take(&mut self.cur);
            block.succs = succs;
        }
        self.place_hoisted();
        let nest = LoopNest::new(&self.mf);
        let depths = nest.depths();
        let frequencies = block_frequencies(&self.mf, &nest);
        for ((block, depth), frequency) in self.mf.blocks.iter_mut().zip(depths).zip(frequencies) {
            block.loop_depth = depth;
            block.frequency = frequency;
        }
    }

    fn emit(&mut self, inst: MInst) {
        if inst.sets_flags() {
            self.flags = None;
            self.chain_flags = None;
        }
        self.cur.push(inst);
    }

    /// Takes the address of every global the function uses more than once into a register
    /// of its own: an address used in a loop is then not rebuilt (`movw` and `movt`) on
    /// every iteration. Accesses at a constant offset from a section's anchor
    /// (`GlobalLayout`) take the anchor's register instead, one for the whole section.
    fn global_addresses(&mut self) {
        let mut uses = vec![0u32; self.m.globals.len()];
        let mut anchored = [false; 3];
        for i in self.f.all_insts() {
            let kind = self.f.kind(i);
            // The operand of a load or store whose address is reached from an anchor.
            let mut anchored_at = None;
            if let Some((at, p, float)) = self.access(i) {
                if let Some(AddrPlan::Anchored(s, _)) = self.folded_addr(p, float) {
                    anchored[s as usize] = true;
                    anchored_at = Some(at);
                }
            }
            if let (
                InstKind::Gep {
                    args: [Value::Global(g), _],
                    ..
                },
                true,
            ) = (kind, self.is_anchor_indexed(i))
            {
                anchored[self.layout.place(*g).0 as usize] = true;
                continue;
            }
            let folded_into_anchor = self.skipped[i.index()]
                && matches!(
                    self.folded_addr(Value::Inst(i), false),
                    Some(AddrPlan::Anchored(..))
                );
            for (n, &v) in kind.operands().iter().enumerate() {
                let Value::Global(g) = v else {
                    continue;
                };
                if folded_into_anchor || anchored_at == Some(n) {
                    continue;
                }
                // An address taken in a loop is taken there on every round; a phi takes
                // its operands at the end of the blocks they come from.
                let at = match kind {
                    InstKind::Phi { blocks, .. } => Some(blocks[n]),
                    _ => self.f.inst_block(i),
                };
                let in_loop = at.and_then(|b| self.loops.innermost(b)).is_some();
                uses[g.index()] += if in_loop { 2 } else { 1 };
            }
        }
        for (g, &n) in uses.iter().enumerate() {
            if n > 1 {
                let r = self.new_vreg(RegClass::Int);
                let sym = symbol(&self.m.globals[g].name);
                self.emit(MInst::LoadSym { rd: r, sym });
                self.global_regs[g] = Some(r);
            }
        }
        // An anchor with a register of its own serves as the section's.
        for s in Section::ALL {
            if anchored[s as usize] {
                let anchor = self.anchor_of[s as usize].expect("an anchored section has an anchor");
                let r = self.global_regs[anchor.index()].unwrap_or_else(|| {
                    let r = self.new_vreg(RegClass::Int);
                    let sym = symbol(&self.m.global(anchor).name);
                    self.emit(MInst::LoadSym { rd: r, sym });
                    r
                });
                self.anchors[s as usize] = Some(r);
            }
        }
    }

    fn new_vreg(&mut self, class: RegClass) -> Reg {
        self.mf.new_vreg(class)
    }

    fn def(&self, i: Inst) -> Reg {
        self.inst_regs[i.index()].expect("a result has a register")
    }

    // ---- operands ------------------------------------------------------------------------

    /// A register holding `v`, materialising constants, addresses and undefined values.
    fn reg(&mut self, v: Value) -> Reg {
        let known = match v {
            Value::Inst(i) => self.inst_regs[i.index()],
            Value::Param(p) => Some(self.param_regs[p as usize]),
            Value::Global(g) => self.global_regs[g.index()].or_else(|| {
                let section = self.layout.place(g).0 as usize;
                self.anchors[section].filter(|_| self.anchor_of[section] == Some(g))
            }),
            _ => None,
        };
        if let Some(r) = known {
            return r;
        }
        match v {
            Value::Int(x) => self.int_const(x as u32),
            Value::Bool(b) => self.int_const(b as u32),
            Value::Float(bits) => self.float_const(bits),
            Value::Undef(t) => {
                let zero = self.int_const(0);
                if t == Type::F32 {
                    let r = self.new_vreg(RegClass::Float);
                    self.emit(MInst::VMovFromCore { sd: r, rn: zero });
                    r
                } else {
                    zero
                }
            }
            Value::Global(g) => {
                let r = self.new_vreg(RegClass::Int);
                let sym = symbol(&self.m.global(g).name);
                self.emit(MInst::LoadSym { rd: r, sym });
                r
            }
            Value::Inst(i) => {
                let obj = self.allocas[i.index()].expect("an address is an alloca");
                let r = self.new_vreg(RegClass::Int);
                self.emit(MInst::SlotAddr {
                    rd: r,
                    slot: Slot::Local(obj),
                    offset: 0,
                });
                r
            }
            Value::Param(_) => unreachable!("parameters have registers"),
        }
    }

    /// The preheaders of the loops around the current block that have one, outermost
    /// first, up to the first loop with other loops inside besides the one the block is
    /// in: a constant hoisted there would live through its sibling loops too, crowding
    /// their registers (and, spilled, be rematerialised at every use, the hot loop's too).
    /// Empty where constants stay in place (outside loops, for phi copies, while
    /// materialising into a preheader, and in nests deeper than `MAX_HOIST_DEPTH`).
    fn preheaders_around(&self) -> Vec<Block> {
        let innermost = self.block.and_then(|b| self.loops.innermost(b));
        let Some(mut k) = innermost.filter(|_| !self.in_place) else {
            return Vec::new();
        };
        let mut chain = Vec::new();
        for _ in 0..MAX_HOIST_DEPTH {
            let l = &self.loops.loops[k];
            chain.extend(l.preheader);
            match l.parent {
                Some(p) if self.loops.loops[p].children.len() == 1 => k = p,
                _ => {
                    chain.reverse();
                    return chain;
                }
            }
        }
        Vec::new()
    }

    /// The register of a constant of `class` with these bits, materialised by `make`: in a
    /// loop, once in the preheader of the outermost loop around it (see `hoisted`) unless
    /// `MAX_HOISTED` constants hoisted there or in inner preheaders already live through
    /// this block; else here, once per few instructions of the block (`block_consts`).
    fn constant(&mut self, class: RegClass, bits: u32, make: fn(&mut Self, u32) -> Reg) -> Reg {
        let chain = self.preheaders_around();
        for pre in &chain {
            if let Some(&r) = self.hoisted_consts.get(&(*pre, class, bits)) {
                return r;
            }
        }
        let live: usize = chain.iter().map(|p| self.hoisted_count[p.index()]).sum();
        let Some(&pre) = chain.first().filter(|_| live < MAX_HOISTED) else {
            if self.in_place {
                return make(self, bits);
            }
            let here = self.cur.len();
            if let Some(&(r, at)) = self.block_consts.get(&(class, bits)) {
                if here - at <= CONSTANT_REACH {
                    return r;
                }
            }
            let r = make(self, bits);
            self.block_consts.insert((class, bits), (r, self.cur.len()));
            return r;
        };
        let here = std::mem::replace(
            &mut self.cur,
            std::mem::take(&mut self.hoisted[pre.index()]),
        );
        self.in_place = true;
        let r = make(self, bits);
        self.in_place = false;
        self.hoisted[pre.index()] = std::mem::replace(&mut self.cur, here);
        self.hoisted_consts.insert((pre, class, bits), r);
        self.hoisted_count[pre.index()] += 1;
        r
    }

    /// Puts each preheader's hoisted constants before its branch.
    fn place_hoisted(&mut self) {
        for b in self.f.blocks() {
            let code = std::mem::take(&mut self.hoisted[b.index()]);
            if code.is_empty() {
                continue;
            }
            let insts = &mut self.mf.block_mut(self.block_index[b.index()]).insts;
            let end = insts
                .iter()
                .rposition(|i| !i.is_terminator())
                .map_or(0, |p| p + 1);
            insts.splice(end..end, code);
        }
    }

    fn int_const(&mut self, v: u32) -> Reg {
        self.constant(RegClass::Int, v, Self::materialize_int)
    }

    fn float_const(&mut self, bits: u32) -> Reg {
        self.constant(RegClass::Float, bits, |s, bits| {
            let r = s.new_vreg(RegClass::Float);
            if vfp_immediate(bits) {
                s.emit(MInst::VMovImm { sd: r, bits });
            } else {
                let core = s.materialize_int(bits);
                s.emit(MInst::VMovFromCore { sd: r, rn: core });
            }
            r
        })
    }

    fn materialize_int(&mut self, v: u32) -> Reg {
        let rd = self.new_vreg(RegClass::Int);
        if is_operand2(v) {
            self.emit(MInst::Mov {
                cond: None,
                rd,
                src: Operand2::Imm(v),
            });
        } else if is_operand2(!v) {
            self.emit(MInst::Mvn {
                rd,
                src: Operand2::Imm(!v),
            });
        } else {
            self.emit(MInst::Movw { rd, imm: v as u16 });
            if v >> 16 != 0 {
                self.emit(MInst::Movt {
                    rd,
                    imm: (v >> 16) as u16,
                });
            }
        }
        rd
    }

    /// `v` as a flexible second operand: an immediate when it encodes, else a register.
    fn op2(&mut self, v: Value) -> Operand2 {
        match v {
            Value::Int(x) if is_operand2(x as u32) => Operand2::Imm(x as u32),
            Value::Bool(b) => Operand2::Imm(b as u32),
            _ => Operand2::Reg(self.reg(v)),
        }
    }

    fn alloca_of(&self, v: Value) -> Option<u32> {
        v.as_inst().and_then(|i| self.allocas[i.index()])
    }

    /// How an access of `ptr` can address memory without computing `ptr` itself.
    fn folded_addr(&self, ptr: Value, float: bool) -> Option<AddrPlan> {
        if let Some(obj) = self.alloca_of(ptr) {
            return Some(AddrPlan::Slot(obj, 0));
        }
        if let Value::Global(g) = ptr {
            return self.anchored(g, 0, |off| fits_offset(off, float));
        }
        let i = ptr.as_inst()?;
        let InstKind::Gep {
            args: [base, index],
            stride,
        } = *self.f.kind(i)
        else {
            return None;
        };
        if let (Value::Global(g), true) = (base, self.is_anchor_indexed(i)) {
            return Some(AddrPlan::Imm(ptr, self.distance_from_anchor(g).1));
        }
        match (index, self.alloca_of(base)) {
            (Value::Int(c), Some(obj)) => Some(AddrPlan::Slot(obj, c.wrapping_mul(stride as i32))),
            (Value::Int(c), None) => {
                let off = c.wrapping_mul(stride as i32);
                if let Value::Global(g) = base {
                    let near = |off| matches!(self.far_offset_plan(i, off), FarOffset::Near);
                    if let Some(plan) = self.anchored(g, off, near) {
                        return Some(plan);
                    }
                }
                match self.far_offset_plan(i, off) {
                    FarOffset::Near => Some(AddrPlan::Imm(base, off)),
                    FarOffset::Index if !float => Some(AddrPlan::Index(base, Value::Int(off), 0)),
                    FarOffset::Index | FarOffset::Computed => None,
                }
            }
            (_, None) if !float && stride.is_power_of_two() => {
                let shift = stride.trailing_zeros() as u8;
                Some(match self.folded_negation(index) {
                    Some(x) => AddrPlan::IndexDown(base, x, shift),
                    None => AddrPlan::Index(base, index, shift),
                })
            }
            _ => None,
        }
    }

    /// A load or store `i`: the index of its address operand, the address, and whether the
    /// value it moves is a float.
    fn access(&self, i: Inst) -> Option<(usize, Value, bool)> {
        match *self.f.kind(i) {
            InstKind::Load { args: [p] } => Some((0, p, self.f.inst(i).ty == Type::F32)),
            InstKind::Store { args: [x, p] } => Some((1, p, self.f.value_type(x) == Type::F32)),
            _ => None,
        }
    }

    /// Whether every use of `v` is as the address of a load or store for which `fits`
    /// holds, given whether that access moves a float.
    fn only_accessed(&self, v: Value, fits: impl Fn(bool) -> bool) -> bool {
        self.f.uses(v).iter().all(|u| {
            self.access(u.inst)
                .is_some_and(|(at, _, float)| at == u.index as usize && fits(float))
        })
    }

    /// Per block, whether a register of its own per global address likely holds there: in
    /// a function that makes no call, and in loops, which get registers first (a loop that
    /// calls may still keep the address in a callee-saved register; reaching it from an
    /// anchor instead took an `add` per access there, 1.11x the cycles of `nqueens`).
    fn keeps_addresses(&self, b: Block) -> bool {
        !self.calls || self.loops.innermost(b).is_some()
    }

    /// `gep @g, x, s` with `x` not a constant, in a block where each global's own address
    /// likely does not stay in a register (`keeps_addresses`): `g` and the stride `s`.
    fn indexed_global_off_registers(&self, i: Inst) -> Option<(GlobalId, u32)> {
        let InstKind::Gep {
            args: [Value::Global(g), index],
            stride,
        } = *self.f.kind(i)
        else {
            return None;
        };
        let b = self.f.inst_block(i)?;
        (!index.is_constant() && !self.keeps_addresses(b)).then_some((g, stride))
    }

    /// How the accesses of `gep b, off` (bytes) address it: with `off` as their immediate
    /// when every one can take it; else the address is computed once (`add a, b, #off;
    /// ldr r, [a]`) if the offset is an immediate of `add` or several accesses share it;
    /// else the one access, a core one, takes the offset from a register (`movw t, #off;
    /// ldr r, [b, t]`).
    fn far_offset_plan(&self, i: Inst, off: i32) -> FarOffset {
        let uses = self.f.uses(Value::Inst(i));
        let far = uses.iter().any(|u| {
            let float = self.access(u.inst).is_some_and(|(_, _, float)| float);
            !fits_offset(off, float)
        });
        if !far {
            FarOffset::Near
        } else if is_operand2(off as u32) || uses.len() > 1 {
            FarOffset::Computed
        } else {
            FarOffset::Index
        }
    }

    /// The access of global `g` at byte `off` as an offset from its section's anchor, when
    /// `fits` takes that offset as an immediate.
    fn anchored(&self, g: GlobalId, off: i32, fits: impl Fn(i32) -> bool) -> Option<AddrPlan> {
        let (section, at) = self.distance_from_anchor(g);
        let off = at.checked_add(off)?;
        (self.anchoring[section as usize] && fits(off)).then_some(AddrPlan::Anchored(section, off))
    }

    /// The section of `g` and its distance from the global the function reaches that
    /// section's globals from (`choose_anchors`).
    fn distance_from_anchor(&self, g: GlobalId) -> (Section, i32) {
        let (section, at) = self.layout.place(g);
        let anchor = self.anchor_of[section as usize].map_or(0, |a| self.layout.place(a).1);
        (section, at as i32 - anchor as i32)
    }

    /// Chooses, per section, the global the function reaches that section's globals from:
    /// the one whose address it takes most otherwise (as an array indexed by a variable,
    /// weighted by loop depth), whose register then serves the others too, else the one
    /// nearest the section's start that it uses. Reaches globals from it only where at
    /// least two accesses or address computations would, not counting those of `main`
    /// outside loops: for one, the anchor's address is no cheaper than the global's own,
    /// and it is built in the entry block, where a use on a rare path would not build it;
    /// code that runs once does not pay for the register (`life`'s tables, filled at the
    /// start of `main`, took a spill in its loops).
    fn choose_anchors(&mut self) {
        // Per used global, how often its address is taken other than at a constant offset.
        let mut score: Vec<Option<u32>> = vec![None; self.m.globals.len()];
        for i in self.f.all_insts() {
            let kind = self.f.kind(i);
            for (n, &v) in kind.operands().iter().enumerate() {
                let Value::Global(g) = v else {
                    continue;
                };
                let at_constant = match *kind {
                    InstKind::Load { .. } => true,
                    InstKind::Store { .. } => n == 1,
                    InstKind::Gep {
                        args: [_, index], ..
                    } => index.is_constant(),
                    _ => false,
                };
                let depth = self.f.inst_block(i).map_or(0, |b| self.loops.depth(b));
                let weight = if at_constant {
                    0
                } else {
                    1 << (3 * depth.min(5))
                };
                *score[g.index()].get_or_insert(0) += weight;
            }
        }
        let mut best: [Option<(u32, Reverse<u32>, GlobalId)>; 3] = [None; 3];
        for (g, s) in score.iter().enumerate() {
            let Some(s) = *s else {
                continue;
            };
            let g = GlobalId(g as u32);
            let (section, at) = self.layout.place(g);
            let candidate = (s, Reverse(at), g);
            let slot = &mut best[section as usize];
            if slot.is_none_or(|b| candidate > b) {
                *slot = Some(candidate);
            }
        }
        self.anchor_of = best.map(|b| b.map(|(_, _, g)| g));
        // `main` runs once: its accesses outside loops do not pay for a register.
        let once = |i: Inst| {
            self.f.name == "main"
                && self
                    .f
                    .inst_block(i)
                    .is_some_and(|b| self.loops.innermost(b).is_none())
        };
        let mut count = [0u32; 3];
        for i in self.f.all_insts().filter(|&i| !once(i)) {
            let section = match *self.f.kind(i) {
                InstKind::Gep {
                    args: [Value::Global(g), _],
                    ..
                } if self.is_reached_from_anchor(i) => Some(self.layout.place(g).0),
                _ => match self
                    .access(i)
                    .and_then(|(_, p, float)| self.folded_addr(p, float))
                {
                    Some(AddrPlan::Anchored(s, _)) => Some(s),
                    _ => None,
                },
            };
            if let Some(s) = section {
                count[s as usize] += 1;
            }
        }
        self.anchoring = count.map(|n| n >= 2);
    }

    /// Whether `gep @g, x, 2^s`, `x` not a constant, is computed from its section's anchor
    /// (`add t, anchor, x, lsl #s`) and each of its accesses, all loads and stores, adds
    /// `g`'s offset (`ldr r, [t, #off]`). Where calls compete for the registers, the
    /// address of each global would be rebuilt at its uses (`movw`, `movt`): this takes
    /// one instruction fewer, and accesses of several globals at one index share `t`.
    /// Where the registers likely hold each global's address (`keeps_addresses`), the
    /// access takes it with the index and no add (`ldr r, [a, x, lsl #s]`), and so does
    /// the anchor itself, which the anchor's register serves that way.
    fn is_anchor_indexed(&self, i: Inst) -> bool {
        self.is_reached_from_anchor(i)
            && matches!(*self.f.kind(i), InstKind::Gep { args: [Value::Global(g), _], .. }
                if self.distance_from_anchor(g).1 != 0)
    }

    /// `is_anchor_indexed` but for the anchor's own elements: whether gep `i` takes its
    /// address from the anchor's register, with the anchor's offset in its accesses.
    fn is_reached_from_anchor(&self, i: Inst) -> bool {
        let Some((g, stride)) = self.indexed_global_off_registers(i) else {
            return false;
        };
        if !stride.is_power_of_two() || !self.anchoring[self.layout.place(g).0 as usize] {
            return false;
        }
        let off = self.distance_from_anchor(g).1;
        self.only_accessed(Value::Inst(i), |float| fits_offset(off, float))
    }

    /// For `gep @g, x, s` with a stride `s` that is no power of two (a row of a matrix,
    /// `row_used[r]`) outside loops of a function that calls, where the section's anchor
    /// has a register (for the section, or its own) and `g` none of its own: the anchor's
    /// register and `g`'s distance from it, when an `add` takes that distance. The row is
    /// then `mla` on the anchor and one `add`, where `g`'s address took a `movw` and a
    /// `movt` besides the multiply and the add.
    fn row_from_anchor(&self, i: Inst) -> Option<(Reg, i32)> {
        let (g, stride) = self.indexed_global_off_registers(i)?;
        if stride.is_power_of_two() || self.global_regs[g.index()].is_some() {
            return None;
        }
        let (section, off) = self.distance_from_anchor(g);
        let anchor = self.anchors[section as usize].or_else(|| {
            self.anchor_of[section as usize].and_then(|a| self.global_regs[a.index()])
        })?;
        is_operand2(off.unsigned_abs()).then_some((anchor, off))
    }

    fn is_folded_gep(&self, i: Inst) -> bool {
        if !matches!(self.f.kind(i), InstKind::Gep { .. }) || self.is_anchor_indexed(i) {
            return false;
        }
        let v = Value::Inst(i);
        self.only_accessed(v, |float| self.folded_addr(v, float).is_some())
    }

    fn addr(&mut self, ptr: Value, float: bool) -> Addr {
        match self.folded_addr(ptr, float) {
            Some(AddrPlan::Slot(obj, off)) => Addr::Slot(Slot::Local(obj), off),
            Some(AddrPlan::Imm(base, off)) => Addr::Imm(self.reg(base), off),
            Some(AddrPlan::Anchored(section, off)) => {
                let anchor =
                    self.anchors[section as usize].expect("an anchored access has an anchor");
                Addr::Imm(anchor, off)
            }
            Some(AddrPlan::Index(base, index, shift)) => {
                Addr::Index(self.reg(base), self.reg(index), shift)
            }
            Some(AddrPlan::IndexDown(base, index, shift)) => {
                Addr::IndexDown(self.reg(base), self.reg(index), shift)
            }
            None => Addr::Imm(self.reg(ptr), 0),
        }
    }

    // ---- instructions ----------------------------------------------------------------------

    fn inst(&mut self, i: Inst) {
        let data = self.f.inst(i).clone();
        match data.kind {
            InstKind::Alloca { .. } | InstKind::Phi { .. } => {}
            InstKind::Load { args: [p] } => {
                let rd = self.def(i);
                if data.ty == Type::F32 {
                    let addr = self.addr(p, true);
                    self.emit(MInst::VLdr { sd: rd, addr });
                } else {
                    let addr = self.addr(p, false);
                    self.emit(MInst::Ldr {
                        cond: None,
                        rd,
                        addr,
                    });
                }
            }
            InstKind::Store { args: [x, p] } => {
                if let Some(store) = self.conditional_store(i) {
                    self.store_under(store, p);
                    return;
                }
                let rs = self.reg(x);
                if self.f.value_type(x) == Type::F32 {
                    let addr = self.addr(p, true);
                    self.emit(MInst::VStr { ss: rs, addr });
                } else {
                    let addr = self.addr(p, false);
                    self.emit(MInst::Str {
                        cond: None,
                        rs,
                        addr,
                    });
                }
            }
            InstKind::Gep {
                args: [base, index],
                stride,
            } => self.gep(i, base, index, stride),
            InstKind::Binary { op, args: [a, b] } => {
                let rd = self.def(i);
                let by_constant = matches!(op, BinaryOp::SDiv | BinaryOp::SRem) && b.is_constant();
                self.recurrent = by_constant && self.is_on_recurrence(i);
                self.nonnegative = by_constant && self.never_negative(a);
                match self.offset_from_next_value(i) {
                    Some((next, c)) => self.binary(rd, BinaryOp::Add, next, Value::Int(c)),
                    None => self.binary(rd, op, a, b),
                }
                self.recurrent = false;
                self.nonnegative = false;
            }
            InstKind::FNeg { args: [a] } => {
                let sm = self.reg(a);
                let sd = self.def(i);
                self.emit(MInst::VNeg { sd, sm });
            }
            InstKind::Ctz { args: [a] } => {
                let rm = self.reg(a);
                let reversed = self.new_vreg(RegClass::Int);
                self.emit(MInst::Rbit { rd: reversed, rm });
                let rd = self.def(i);
                self.emit(MInst::Clz { rd, rm: reversed });
            }
            InstKind::Icmp { .. } | InstKind::Fcmp { .. } => {
                let conds = self.compare(i);
                let rd = self.def(i);
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(0),
                });
                for cond in conds {
                    self.emit(MInst::Mov {
                        cond: Some(cond),
                        rd,
                        src: Operand2::Imm(1),
                    });
                }
            }
            InstKind::Cast { op, args: [a] } => self.cast(i, op, a),
            InstKind::Select { args: [c, a, b] } => self.select(i, c, a, b),
            InstKind::Call { callee, args } => self.call(i, &callee, &args),
            InstKind::Br { .. } | InstKind::CondBr { .. } | InstKind::Ret { .. } => {
                unreachable!("terminators are selected separately")
            }
        }
    }

    fn gep(&mut self, i: Inst, base: Value, index: Value, stride: u32) {
        let rd = self.def(i);
        if let (Value::Inst(a), Value::Int(c)) = (base, index) {
            if let Some(obj) = self.allocas[a.index()] {
                // A fixed place in a stack array: one address that can be repeated anywhere.
                self.emit(MInst::SlotAddr {
                    rd,
                    slot: Slot::Local(obj),
                    offset: c.wrapping_mul(stride as i32),
                });
                return;
            }
        }
        // An anchor-indexed gep is the anchor plus the scaled index, shared in the block.
        let section = match base {
            Value::Global(g) if self.is_anchor_indexed(i) => Some(self.layout.place(g).0),
            _ => None,
        };
        if let Some(section) = section {
            let key = (section, index, stride.trailing_zeros() as u8);
            if let Some(&t) = self.block_indexed.get(&key) {
                self.emit(MInst::Copy { dst: rd, src: t });
                return;
            }
            self.block_indexed.insert(key, rd);
        }
        if let Some((anchor, off)) = self.row_from_anchor(i) {
            // `mla t, x, stride, anchor`, then the global's distance from the anchor.
            let ri = self.reg(index);
            let rs = self.int_const(stride);
            let t = if off == 0 {
                rd
            } else {
                self.new_vreg(RegClass::Int)
            };
            self.emit(MInst::Mla {
                rd: t,
                rn: ri,
                rm: rs,
                ra: anchor,
            });
            if off != 0 {
                self.emit(MInst::Alu {
                    cond: None,
                    op: if off < 0 { AluOp::Sub } else { AluOp::Add },
                    rd,
                    rn: t,
                    src: Operand2::Imm(off.unsigned_abs()),
                });
            }
            return;
        }
        let rn = match section {
            Some(s) => self.anchors[s as usize].expect("an anchor-indexed gep has an anchor"),
            None => self.reg(base),
        };
        match index {
            Value::Int(c) => {
                let off = c.wrapping_mul(stride as i32) as u32;
                let src = self.op2(Value::Int(off as i32));
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src,
                });
            }
            _ if stride.is_power_of_two() => {
                let (op, index) = match self.folded_negation(index) {
                    Some(x) => (AluOp::Sub, x),
                    None => (AluOp::Add, index),
                };
                let ri = self.reg(index);
                self.emit(MInst::Alu {
                    cond: None,
                    op,
                    rd,
                    rn,
                    src: Operand2::Shifted(ri, Shift::Lsl, stride.trailing_zeros() as u8),
                });
            }
            _ => {
                let ri = self.reg(index);
                let rs = self.int_const(stride);
                let scaled = self.new_vreg(RegClass::Int);
                self.emit(MInst::Mul {
                    rd: scaled,
                    rn: ri,
                    rm: rs,
                });
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src: Operand2::Reg(scaled),
                });
            }
        }
    }

    /// `rd = a op b`; `op` is one instruction (after any constants it needs) when
    /// `cost_model::is_predicable` holds, the last one emitted.
    fn binary(&mut self, rd: Reg, op: BinaryOp, a: Value, b: Value) {
        let vop = match op {
            BinaryOp::FAdd => Some(VOp::Add),
            BinaryOp::FSub => Some(VOp::Sub),
            BinaryOp::FMul => Some(VOp::Mul),
            BinaryOp::FDiv => Some(VOp::Div),
            _ => None,
        };
        if let Some(m) = b.as_inst().filter(|&m| {
            op == BinaryOp::FAdd && self.skipped[m.index()] && self.is_folded_float_mul(m)
        }) {
            let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
                unreachable!("a folded multiplication");
            };
            let (sn, sm, acc) = (self.reg(x), self.reg(y), self.reg(a));
            self.emit(MInst::Copy { dst: rd, src: acc });
            self.emit(MInst::VMla { sd: rd, sn, sm });
            return;
        }
        if let Some(vop) = vop {
            let (sn, sm) = (self.reg(a), self.reg(b));
            self.emit(MInst::VBin {
                op: vop,
                sd: rd,
                sn,
                sm,
            });
            return;
        }
        if let Some((other, div)) = self.division_added(op, a, b) {
            let InstKind::Binary {
                args: [x, Value::Int(d)],
                ..
            } = *self.f.kind(div)
            else {
                unreachable!("a folded division by a constant");
            };
            let Some(DivPlan::Magic {
                magic, add, shift, ..
            }) = const_division::plan(d)
            else {
                unreachable!("a folded division by a magic number");
            };
            let nonnegative = d > 0 && self.never_negative(x);
            let x = self.reg(x);
            let t = self.magic_product(x, magic, add);
            let rn = self.reg(other);
            if nonnegative {
                // A quotient that is never negative needs no truncation correction.
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src: Operand2::Shifted(t, Shift::Asr, shift),
                });
                return;
            }
            let partial = self.new_vreg(RegClass::Int);
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Add,
                rd: partial,
                rn,
                src: Operand2::Shifted(t, Shift::Asr, shift),
            });
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Add,
                rd,
                rn: partial,
                src: Operand2::Shifted(t, Shift::Lsr, 31),
            });
            return;
        }
        if let Some((acc, m)) = self.multiply_accumulate(op, a, b) {
            let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
                unreachable!("a folded multiplication");
            };
            let (rn, rm, ra) = (self.reg(x), self.reg(y), self.reg(acc));
            self.emit(if op == BinaryOp::Add {
                MInst::Mla { rd, rn, rm, ra }
            } else {
                MInst::Mls { rd, rn, rm, ra }
            });
            return;
        }
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                // The operand that can be the flexible second one goes right: a shift folded
                // into this instruction, else a constant.
                let swap = self.shift_of(a).is_some()
                    || (a.is_constant() && !b.is_constant() && self.shift_of(b).is_none());
                let (alu, a, b) = match (op, swap) {
                    (BinaryOp::Add, true) => (AluOp::Add, b, a),
                    (BinaryOp::Sub, true) => (AluOp::Rsb, b, a),
                    (BinaryOp::Add, false) => (AluOp::Add, a, b),
                    _ => (AluOp::Sub, a, b),
                };
                // `x + -1` is `sub x, #1`: a constant whose negation encodes where it does not.
                // When neither encodes, the positive one is built, which the function more
                // likely builds for other uses too (`x - m` next to `x % m`).
                let (alu, b) = match (alu, b) {
                    (AluOp::Add | AluOp::Sub, Value::Int(c))
                        if !is_operand2(c as u32)
                            && (is_operand2(c.wrapping_neg() as u32)
                                || (c < 0 && c != i32::MIN)) =>
                    {
                        let flipped = if alu == AluOp::Add {
                            AluOp::Sub
                        } else {
                            AluOp::Add
                        };
                        (flipped, Value::Int(c.wrapping_neg()))
                    }
                    _ => (alu, b),
                };
                let rn = self.reg(a);
                let src = match self.shift_of(b) {
                    Some((x, shift, amount)) => Operand2::Shifted(self.reg(x), shift, amount),
                    None => self.op2(b),
                };
                self.emit(MInst::Alu {
                    cond: None,
                    op: alu,
                    rd,
                    rn,
                    src,
                });
            }
            BinaryOp::And => {
                let (a, b) = if a.is_constant() { (b, a) } else { (a, b) };
                let rn = self.reg(a);
                let (alu, src) = match b {
                    Value::Int(c) if !is_operand2(c as u32) && is_operand2(!c as u32) => {
                        (AluOp::Bic, Operand2::Imm(!c as u32))
                    }
                    _ => (AluOp::And, self.op2(b)),
                };
                self.emit(MInst::Alu {
                    cond: None,
                    op: alu,
                    rd,
                    rn,
                    src,
                });
            }
            BinaryOp::LShr | BinaryOp::AShr => {
                let rn = self.reg(a);
                let src = match shift_operand(op, b) {
                    (shift, Some(amount)) => Operand2::Shifted(rn, shift, amount),
                    (shift, None) => Operand2::ShiftedBy(rn, shift, self.reg(b)),
                };
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src,
                });
            }
            BinaryOp::Mul => self.mul(rd, a, b),
            BinaryOp::SDiv => match (a.is_constant(), b.as_int().and_then(const_division::plan)) {
                (false, Some(plan)) => {
                    let x = self.reg(a);
                    self.divide_by_constant(rd, x, plan);
                }
                _ => {
                    let (rn, rm) = (self.reg(a), self.reg(b));
                    self.emit(MInst::SDiv { rd, rn, rm });
                }
            },
            BinaryOp::SRem if !a.is_constant() && matches!(b, Value::Int(1 | -1)) => {
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(0),
                });
            }
            BinaryOp::SRem => {
                let (rn, rm) = (self.reg(a), self.reg(b));
                if let (false, Some(plan)) =
                    (a.is_constant(), b.as_int().and_then(const_division::plan))
                {
                    let q = self.new_vreg(RegClass::Int);
                    self.divide_by_constant(q, rn, plan);
                    self.emit(MInst::Mls {
                        rd,
                        rn: q,
                        rm,
                        ra: rn,
                    });
                    return;
                }
                let q = self.new_vreg(RegClass::Int);
                self.emit(MInst::SDiv { rd: q, rn, rm });
                self.emit(MInst::Mls {
                    rd,
                    rn: q,
                    rm,
                    ra: rn,
                });
            }
            _ => unreachable!("float operations handled above"),
        }
    }

    /// `rd = x / d` for the constant `d` that `plan` is for (see `const_division`).
    fn divide_by_constant(&mut self, rd: Reg, x: Reg, plan: DivPlan) {
        let shifted = |r: Reg, shift: Shift, k: u8| Operand2::Shifted(r, shift, k);
        match plan {
            DivPlan::Copy => self.emit(MInst::Copy { dst: rd, src: x }),
            DivPlan::Negate => self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Rsb,
                rd,
                rn: x,
                src: Operand2::Imm(0),
            }),
            DivPlan::IntMin => {
                self.emit(MInst::Cmp {
                    cond: None,
                    rn: x,
                    src: Operand2::Imm(1 << 31),
                });
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(0),
                });
                self.emit(MInst::Mov {
                    cond: Some(Cond::Eq),
                    rd,
                    src: Operand2::Imm(1),
                });
            }
            DivPlan::Shift { k, negate } => {
                // Negative dividends round towards zero: add 2^k - 1 first.
                let sign = if k == 1 {
                    x
                } else {
                    let s = self.new_vreg(RegClass::Int);
                    self.emit(MInst::Mov {
                        cond: None,
                        rd: s,
                        src: shifted(x, Shift::Asr, 31),
                    });
                    s
                };
                let biased = self.new_vreg(RegClass::Int);
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd: biased,
                    rn: x,
                    src: shifted(sign, Shift::Lsr, 32 - k),
                });
                let q = if negate {
                    self.new_vreg(RegClass::Int)
                } else {
                    rd
                };
                self.emit(MInst::Mov {
                    cond: None,
                    rd: q,
                    src: shifted(biased, Shift::Asr, k),
                });
                if negate {
                    self.emit(MInst::Alu {
                        cond: None,
                        op: AluOp::Rsb,
                        rd,
                        rn: q,
                        src: Operand2::Imm(0),
                    });
                }
            }
            DivPlan::Magic {
                magic,
                add,
                shift,
                positive,
            } => {
                let q = self.magic_product(x, magic, add);
                if positive && self.nonnegative {
                    // A quotient that is never negative needs no truncation correction
                    // (a shift by 0 is the register itself).
                    self.emit(MInst::Mov {
                        cond: None,
                        rd,
                        src: shifted(q, Shift::Asr, shift),
                    });
                    return;
                }
                if positive && shift > 0 && self.recurrent {
                    // `(q >> shift) - (x >> 31)`: the sign is ready before the product, so
                    // the quotient is one instruction after the multiply, not two, which
                    // the next round of a recurrence waits for. Elsewhere the sign comes
                    // from the shifted product, in its register, holding one fewer.
                    let sign = self.new_vreg(RegClass::Int);
                    self.emit(MInst::Mov {
                        cond: None,
                        rd: sign,
                        src: shifted(x, Shift::Asr, 31),
                    });
                    self.emit(MInst::Alu {
                        cond: None,
                        op: AluOp::Rsb,
                        rd,
                        rn: sign,
                        src: shifted(q, Shift::Asr, shift),
                    });
                    return;
                }
                let mut q = q;
                if shift > 0 {
                    let t = self.new_vreg(RegClass::Int);
                    self.emit(MInst::Mov {
                        cond: None,
                        rd: t,
                        src: shifted(q, Shift::Asr, shift),
                    });
                    q = t;
                }
                // Truncation: negative quotients are one too small until their sign is added.
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn: q,
                    src: shifted(q, Shift::Lsr, 31),
                });
            }
        }
    }

    /// `mulhs(x, magic)`, plus `x` when `add` is 1 or minus `x` when -1: a magic division's
    /// quotient before its shift and sign correction.
    fn magic_product(&mut self, x: Reg, magic: i32, add: i8) -> Reg {
        let m = self.int_const(magic as u32);
        let q = self.new_vreg(RegClass::Int);
        self.emit(MInst::Smmul {
            rd: q,
            rn: x,
            rm: m,
        });
        if add == 0 {
            return q;
        }
        let t = self.new_vreg(RegClass::Int);
        self.emit(MInst::Alu {
            cond: None,
            op: if add > 0 { AluOp::Add } else { AluOp::Sub },
            rd: t,
            rn: q,
            src: Operand2::Reg(x),
        });
        t
    }

    /// `rd = a * b`. By a constant 2^k, 2^k + 1 or 2^k - 1 (k >= 1): one shift, or an add
    /// or reverse subtract of a shifted operand (`add rd, a, a, lsl #k`), instead of a
    /// multiply and the constant's register.
    fn mul(&mut self, rd: Reg, a: Value, b: Value) {
        let (a, b) = if a.is_constant() { (b, a) } else { (a, b) };
        if let (false, Value::Int(c)) = (a.is_constant(), b) {
            if let Some((op, power)) = shift_and_add(c as u32) {
                let rn = self.reg(a);
                let src = Operand2::Shifted(rn, Shift::Lsl, power.trailing_zeros() as u8);
                match op {
                    None => self.emit(MInst::Mov {
                        cond: None,
                        rd,
                        src,
                    }),
                    Some(op) => self.emit(MInst::Alu {
                        cond: None,
                        op,
                        rd,
                        rn,
                        src,
                    }),
                }
                return;
            }
        }
        let (rn, rm) = (self.reg(a), self.reg(b));
        self.emit(MInst::Mul { rd, rn, rm });
    }

    /// The false value `b` into the result's register, then the true value `a` under the
    /// condition `c`: `mov rd, b` (a copy, which allocation may coalesce away) and
    /// `mov<cond> rd, a`. A value computed by a predicated operation is computed right
    /// there instead, into the result's register: `if (x == 93) n = n - 1;` becomes
    /// `cmp` and `subeq`.
    fn select(&mut self, i: Inst, c: Value, a: Value, b: Value) {
        let rd = self.def(i);
        if self.f.inst(i).ty == Type::F32 {
            // `vmov` of the false value (a copy), then `vmov<cond>.f32` of the true one.
            let (sa, sb) = (self.reg(a), self.reg(b));
            self.emit(MInst::Copy { dst: rd, src: sb });
            for cond in self.condition(c) {
                self.emit(MInst::VMovIf {
                    cond,
                    sd: rd,
                    sm: sa,
                });
            }
            return;
        }
        if let Some((x, bits)) = unsigned_clamp(self.f, c, a, b) {
            let rn = self.reg(x);
            self.emit(MInst::Usat { rd, bits, rn });
            return;
        }
        // The loop's own value first, which saves a copy on the way back to its phi, or a
        // value computed from it where it dies (`d = min(d + 2, m)`: the sum takes the
        // phi's register, then the select's); else the value that can share the select's
        // register.
        let own = |v: Value| {
            if self.is_carried(v, i) {
                2
            } else {
                u8::from(self.made_of_carried(v, i))
            }
        };
        let (own_a, own_b) = (own(a), own(b));
        let a_first = if own_a != own_b {
            own_a > own_b
        } else {
            self.can_share(a, i) && !self.can_share(b, i)
        };
        if a_first && !self.has_two_conditions(c) {
            self.value_into(rd, a, None);
            let cond = self.condition(c)[0];
            self.value_under(rd, b, Some(cond.invert()), (i, c, false));
            return;
        }
        self.value_into(rd, b, None);
        for cond in self.condition(c) {
            self.value_under(rd, a, Some(cond), (i, c, true));
        }
    }

    /// `value_into` for the value `v` that select `sel` takes when its condition `c` is
    /// `holds`, moved or computed under `cond`. A predicated operation reads, in place of an
    /// operand `x`, a select made before `sel` in its block on the same condition that is
    /// `x` whenever `c` is `holds`: then `x` need not outlive that select, whose register it
    /// can share (`x = x > y ? x - y : x; y = x > y ? y : y - x` subtract in place, as
    /// `subgt x, x, y; suble y, y, x`).
    fn value_under(
        &mut self,
        rd: Reg,
        v: Value,
        cond: Option<Cond>,
        (sel, c, holds): (Inst, Value, bool),
    ) {
        let f = self.f;
        let predicated = v.as_inst().filter(|i| self.skipped[i.index()]);
        let (Some(op_inst), Some(block)) = (predicated, f.inst_block(sel)) else {
            return self.value_into(rd, v, cond);
        };
        let InstKind::Binary { op, args: [x, y] } = *f.kind(op_inst) else {
            return self.value_into(rd, v, cond);
        };
        let selected_before = |o: Value| {
            f.uses(o)
                .iter()
                .take(MAX_USES_SEEN)
                .map(|u| u.inst)
                .find(|&k| {
                    self.selected[k.index()]
                        && f.inst_block(k) == Some(block)
                        && matches!(*f.kind(k), InstKind::Select { args: [s, t, e] }
                            if s == c && (if holds { t } else { e }) == o)
                })
                .map_or(o, Value::Inst)
        };
        let (x, y) = (selected_before(x), selected_before(y));
        self.operation_into(rd, op, x, y, cond);
    }

    /// Whether the value of `i` comes back to one of its operands round a loop: through at
    /// most `MAX_RECURRENCE_STEPS` operations and phis to a phi, and from that phi through as
    /// many operations to `i` (`carry = (x[k] * f + carry) / base`, `h = (h * 31 + c) % m`).
    fn is_on_recurrence(&self, i: Inst) -> bool {
        let f = self.f;
        if f.inst_block(i).is_none_or(|b| self.loops.depth(b) == 0) {
            return false;
        }
        let mut phis = Vec::new();
        let mut level = vec![i];
        let mut uses = 0;
        for _ in 0..MAX_RECURRENCE_STEPS {
            let mut next = Vec::new();
            for &v in &level {
                for u in f.uses(Value::Inst(v)) {
                    uses += 1;
                    if uses > MAX_RECURRENCE_USES {
                        break;
                    }
                    match f.kind(u.inst) {
                        // A phi where the arms of an `if` join passes the value on to the
                        // header's (`f[j] = c ? 0 : (f[j] + f[j - 1]) % m`).
                        InstKind::Phi { .. } => {
                            phis.push(u.inst);
                            next.push(u.inst);
                        }
                        InstKind::Binary { .. } | InstKind::Select { .. } => next.push(u.inst),
                        _ => {}
                    }
                }
            }
            level = next;
        }
        // Backward, each operation once: what a second path reaches, the first reached at
        // least as soon.
        let mut seen: Vec<Inst> = Vec::new();
        let mut level: Vec<Value> = f.kind(i).operands().to_vec();
        for _ in 0..MAX_RECURRENCE_STEPS {
            let mut next = Vec::new();
            for d in level.iter().filter_map(|v| v.as_inst()) {
                if seen.contains(&d) || seen.len() == MAX_RECURRENCE_OPERANDS {
                    continue;
                }
                seen.push(d);
                match f.kind(d) {
                    InstKind::Phi { .. } if phis.contains(&d) => return true,
                    InstKind::Binary { args, .. } => next.extend_from_slice(args),
                    InstKind::Select { args } => next.extend_from_slice(args),
                    _ => {}
                }
            }
            level = next;
        }
        false
    }

    /// Whether `v` is an operation, not computed under a condition, of a phi that takes the
    /// select `sel` round its loop (`is_carried`) and that nothing reads after it: the
    /// operation can take the phi's register, and the select the operation's.
    fn made_of_carried(&self, v: Value, sel: Inst) -> bool {
        let Some(vi) = v.as_inst() else {
            return false;
        };
        if self.skipped[vi.index()] || !matches!(self.f.kind(vi), InstKind::Binary { .. }) {
            return false;
        }
        self.f
            .kind(vi)
            .operands()
            .iter()
            .any(|&p| self.is_carried(p, sel) && self.f.uses(p).iter().all(|u| u.inst == vi))
    }

    /// Whether `v`, an operand of the select `sel`, can share the select's register: a
    /// value in a register that nothing reads after the select (`read_after`). Moved into
    /// the select's register unconditionally, it then shares it, leaving one conditional
    /// instruction for the other value (`m = x < m ? x : m` as `cmp x, m; movlt m, x`). Not
    /// a value computed for the select alone under its condition (`skipped`), which would
    /// then be computed always.
    fn can_share(&self, v: Value, sel: Inst) -> bool {
        match v {
            Value::Inst(i) if self.skipped[i.index()] => false,
            Value::Inst(_) | Value::Param(_) => !self.read_after(v, sel),
            _ => false,
        }
    }

    /// Whether `v` may be read after the select `sel`: by an instruction after it in its
    /// block, or in a block reachable from there without passing `v`'s definition (a phi
    /// reads its value at the end of the block it comes from). Past `MAX_LIVENESS_BLOCKS`
    /// blocks searched, it is taken to be read.
    fn read_after(&self, v: Value, sel: Inst) -> bool {
        let f = self.f;
        let Some(s) = f.inst_block(sel) else {
            return true;
        };
        let def = v.as_inst().and_then(|i| f.inst_block(i));
        // The blocks where a use reads `v`, each with whether it reads it after `sel` when
        // that block is the select's.
        let mut sites: Vec<(Block, bool)> = Vec::new();
        for u in f.uses(v) {
            match f.kind(u.inst) {
                InstKind::Phi { args, blocks } => sites.extend(
                    args.iter()
                        .zip(blocks)
                        .filter(|&(&a, _)| a == v)
                        .map(|(_, &b)| (b, true)),
                ),
                // Read again when the select's block runs again.
                _ if u.inst == sel => sites.push((s, false)),
                _ => match f.inst_block(u.inst) {
                    Some(b) if b == s => {
                        let after = f
                            .block_insts(s)
                            .skip_while(|&k| k != sel)
                            .any(|k| k == u.inst);
                        sites.push((b, after));
                    }
                    Some(b) => sites.push((b, true)),
                    None => {}
                },
            }
        }
        if sites.iter().any(|&(b, after)| b == s && after) {
            return true;
        }
        // Reaching the select's block again, a use before the select reads `v` again.
        let mut seen: Vec<Block> = Vec::new();
        let mut todo: Vec<Block> = f.successors(s).to_vec();
        while let Some(b) = todo.pop() {
            if seen.contains(&b) || Some(b) == def {
                continue;
            }
            if seen.len() >= MAX_LIVENESS_BLOCKS {
                return true;
            }
            seen.push(b);
            if sites.iter().any(|&(u, _)| u == b) {
                return true;
            }
            if b != s {
                todo.extend_from_slice(f.successors(b));
            }
        }
        false
    }

    /// Whether `v` is a phi that takes the select `sel` round its loop (`x = c ? x : y`),
    /// directly or through at most `MAX_JOINS` phis where paths join (an `else if` chain):
    /// moved into the select's register unconditionally, `v` can share that register (it
    /// dies at the select), leaving one conditional instruction for the other value.
    fn is_carried(&self, v: Value, sel: Inst) -> bool {
        let f = self.f;
        let phi_args = |v: Value| match v.as_inst().map(|p| f.kind(p)) {
            Some(InstKind::Phi { args, .. }) => args.as_slice(),
            _ => &[],
        };
        let mut level = vec![v];
        for _ in 0..=MAX_JOINS {
            let args: Vec<Value> = level.iter().flat_map(|&p| phi_args(p)).copied().collect();
            if args.contains(&Value::Inst(sel)) {
                return true;
            }
            level = args;
        }
        false
    }

    /// A store under a condition (see `conditional_store`), with its one flag test: the
    /// select's condition, or its opposite when the new value is the select's false one.
    fn conditional_store(&self, i: Inst) -> Option<ConditionalStore> {
        let store = conditional_store(self.f, i)?;
        (!self.has_two_conditions(store.cond)).then_some(store)
    }

    /// Whether the truth value `c` holds under either of two conditions (a float comparison
    /// such as `one`), which no single condition inverts.
    fn has_two_conditions(&self, c: Value) -> bool {
        c.as_inst().is_some_and(|c| {
            matches!(*self.f.kind(c), InstKind::Fcmp { pred, .. } if float_conds(pred).len() > 1)
        })
    }

    /// `str<cond> new, [p]`; a predicated operation that computes `new` for the select
    /// alone runs under the same condition.
    fn store_under(&mut self, store: ConditionalStore, p: Value) {
        let addr = self.addr(p, false);
        let predicated = store.new.as_inst().is_some_and(|i| self.skipped[i.index()]);
        let held = (!predicated).then(|| self.reg(store.new));
        let test = self.condition(store.cond)[0];
        let cond = if store.when { test } else { test.invert() };
        let rs = held.unwrap_or_else(|| {
            let rd = self.new_vreg(RegClass::Int);
            self.value_into(rd, store.new, Some(cond));
            rd
        });
        self.emit(MInst::Str {
            cond: Some(cond),
            rs,
            addr,
        });
    }

    /// For `x + c`, `x` a phi, where `next = x + c2` (what the phi takes on an edge into its
    /// block) comes earlier in the same block: `next` and `c - c2`, so that `x` need not live
    /// beside `next` and the two coalesce (`j + 3` after `j + 2` in a loop stepping by 2
    /// is `(j + 2) + 1`).
    fn offset_from_next_value(&self, i: Inst) -> Option<(Value, i32)> {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        } = *f.kind(i)
        else {
            return None;
        };
        let InstKind::Phi { args, .. } = f.kind(x.as_inst()?) else {
            return None;
        };
        let block = f.inst_block(i)?;
        args.iter().find_map(|&next| {
            let n = next
                .as_inst()
                .filter(|&n| n != i && !self.skipped[n.index()])?;
            let InstKind::Binary {
                op: BinaryOp::Add,
                args: [y, Value::Int(c2)],
            } = *f.kind(n)
            else {
                return None;
            };
            let before = f.inst_block(n) == Some(block)
                && f.block_insts(block).take_while(|&k| k != i).any(|k| k == n);
            (y == x && before).then(|| (next, c.wrapping_sub(c2)))
        })
    }

    /// `x op y`, a predicable operation, computed into `rd` under `cond` if given.
    fn operation_into(&mut self, rd: Reg, op: BinaryOp, x: Value, y: Value, cond: Option<Cond>) {
        self.binary(rd, op, x, y);
        match self.cur.last_mut() {
            Some(MInst::Alu { cond: c, .. } | MInst::Mov { cond: c, .. }) => *c = cond,
            _ => unreachable!("a predicable operation ends in alu or mov"),
        }
    }

    /// Puts `v` into `rd`, under `cond` if given: a predicated operation is computed into
    /// it, anything else moved.
    fn value_into(&mut self, rd: Reg, v: Value, cond: Option<Cond>) {
        if let Some(i) = v.as_inst().filter(|i| self.skipped[i.index()]) {
            if let InstKind::Binary { op, args: [x, y] } = *self.f.kind(i) {
                self.operation_into(rd, op, x, y, cond);
                return;
            }
        }
        match (cond, self.op2(v)) {
            (None, Operand2::Reg(src)) => self.emit(MInst::Copy { dst: rd, src }),
            (cond, src) => self.emit(MInst::Mov { cond, rd, src }),
        }
    }

    /// Sets the flags for the truth value `c` and returns the conditions (any of which
    /// holding means true): a fused comparison is emitted here, unless the flags still hold
    /// a comparison of the same two values from a select or branch before (`best = run; pos
    /// = i;` under one `run > best`, or `min` and `max` of one pair, compare once), anything
    /// else is compared with 0.
    fn condition(&mut self, c: Value) -> Vec<Cond> {
        if let Some(plan) = c.as_inst().and_then(|ci| self.chains[ci.index()].clone()) {
            return vec![self.chain(c, &plan)];
        }
        match c.as_inst() {
            Some(ci) if self.skipped[ci.index()] => {
                let (compared, conds) = compared(self.f, ci);
                if self.flags == Some(compared) {
                    return conds;
                }
                // The same two values the other way round: the mirrored condition.
                if let (Some(set), InstKind::Icmp { pred, .. }) = (self.flags, self.f.kind(ci)) {
                    let Compared(a, b, float) = compared;
                    if set == Compared(b, a, float) {
                        let pred = if self.f.kind(ci).operands()[0] == a {
                            pred.swapped()
                        } else {
                            *pred
                        };
                        return vec![int_cond(pred)];
                    }
                }
                let conds = self.compare(ci);
                self.flags = Some(compared);
                conds
            }
            _ => {
                let rn = self.reg(c);
                self.emit(MInst::Cmp {
                    cond: None,
                    rn,
                    src: Operand2::Imm(0),
                });
                vec![Cond::Ne]
            }
        }
    }

    /// Emits the compares of chain `c` (`plan`), unless the flags still hold them, and
    /// returns the condition under which `c` holds: each compare after the first runs
    /// where the ones before left the answer open.
    fn chain(&mut self, c: Value, plan: &[Form]) -> Cond {
        let last = int_cond(plan.last().expect("a chain has compares").pred);
        if self.chain_flags == c.as_inst() {
            return last;
        }
        let mut holds = None;
        for form in plan {
            let cond = match form.link {
                None => None,
                Some(Link::Or) => holds.map(Cond::invert),
                Some(Link::And) => holds,
            };
            holds = Some(self.int_compare(form.pred, form.a, form.b, cond));
        }
        self.chain_flags = c.as_inst();
        last
    }

    /// Emits the comparison of instruction `i` and returns the conditions (any of which
    /// holding means true) that it sets the flags for.
    fn compare(&mut self, i: Inst) -> Vec<Cond> {
        match *self.f.kind(i) {
            InstKind::Icmp { pred, args: [a, b] } => {
                let (pred, a, b) = if a.is_constant() && !b.is_constant() {
                    (pred.swapped(), b, a)
                } else {
                    (pred, a, b)
                };
                vec![self.int_compare(pred, a, b, None)]
            }
            InstKind::Fcmp { pred, args: [a, b] } => {
                let zero = |v: Value| matches!(v, Value::Float(bits) if bits << 1 == 0);
                let (pred, a, b) = if zero(a) && !zero(b) {
                    (pred.swapped(), b, a)
                } else {
                    (pred, a, b)
                };
                let sn = self.reg(a);
                if zero(b) {
                    self.emit(MInst::VCmpZero { sn });
                } else {
                    let sm = self.reg(b);
                    self.emit(MInst::VCmp { sn, sm });
                }
                float_conds(pred).to_vec()
            }
            _ => unreachable!("not a comparison"),
        }
    }

    /// Emits `cmp a, b` (`a` not a constant), under `cond` if given, and returns the
    /// condition under which `a pred b` holds.
    fn int_compare(&mut self, pred: IntPred, a: Value, b: Value, cond: Option<Cond>) -> Cond {
        if let Some((x, mask)) = self.tested_mask(a, b) {
            let rn = self.reg(x);
            let src = self.op2(mask);
            self.emit(MInst::Tst { cond, rn, src });
            return int_cond(pred);
        }
        let rn = self.reg(a);
        // `x < -5` is `cmn x, #5`: a constant whose negation encodes where it does not (the
        // flags, carry included, are those of the comparison).
        match b {
            Value::Int(c) if !is_operand2(c as u32) && is_operand2(c.wrapping_neg() as u32) => {
                let src = Operand2::Imm(c.wrapping_neg() as u32);
                self.emit(MInst::Cmn { cond, rn, src });
            }
            _ => {
                let src = match (self.added_constant(a), b) {
                    // `x + h` compared with `2h` (a divisibility test): the constant the
                    // sum holds in a register, shifted, instead of another one.
                    (Some(h), Value::Int(k))
                        if h.wrapping_mul(2) == k && !is_operand2(k as u32) =>
                    {
                        Operand2::Shifted(self.int_const(h as u32), Shift::Lsl, 1)
                    }
                    _ => self.op2(b),
                };
                self.emit(MInst::Cmp { cond, rn, src });
            }
        }
        int_cond(pred)
    }

    /// Whether value ranges show that `v` is never negative.
    fn never_negative(&self, v: Value) -> bool {
        self.ranges.is_some_and(|r| r.of(v).lo >= 0)
    }

    /// The constant `h` when `v` is `x + h` and `h` must be in a register to be added.
    fn added_constant(&self, v: Value) -> Option<i32> {
        match *self.f.kind(v.as_inst()?) {
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [x, Value::Int(h)],
            } if !x.is_constant()
                && !is_operand2(h as u32)
                && !is_operand2(h.wrapping_neg() as u32) =>
            {
                Some(h)
            }
            _ => None,
        }
    }

    /// `x & mask` whose only user is a comparison of it with 0 for equality in its block:
    /// the comparison tests the bits in place (`tst x, #mask`) and the `and` needs no
    /// register.
    fn is_tested_mask(&self, i: Inst) -> bool {
        let f = self.f;
        if !matches!(
            f.kind(i),
            InstKind::Binary {
                op: BinaryOp::And,
                ..
            }
        ) {
            return false;
        }
        match f.uses(Value::Inst(i)) {
            [u] => {
                f.inst_block(u.inst) == f.inst_block(i)
                    && matches!(*f.kind(u.inst), InstKind::Icmp { pred: IntPred::Eq | IntPred::Ne, args }
                        if args.contains(&Value::Int(0)))
            }
            _ => false,
        }
    }

    /// `(x, mask)` when comparing `a` with `b` tests a mask (`is_tested_mask`) against 0.
    fn tested_mask(&self, a: Value, b: Value) -> Option<(Value, Value)> {
        let i = a.as_inst().filter(|i| self.skipped[i.index()])?;
        match (self.f.kind(i), b) {
            (
                &InstKind::Binary {
                    op: BinaryOp::And,
                    args: [x, mask],
                },
                Value::Int(0),
            ) => Some(if x.is_constant() {
                (mask, x)
            } else {
                (x, mask)
            }),
            _ => None,
        }
    }

    /// A shift (a right shift by a constant, or a multiplication by a power of two) whose
    /// only user is an addition or subtraction, which takes it as its shifted-register
    /// operand (`add rd, rn, rm, lsr #k`, `sub rd, rn, rm, lsl #k`).
    fn is_folded_shift(&self, i: Inst) -> bool {
        let f = self.f;
        let v = Value::Inst(i);
        if shift_parts(f, v).is_none() {
            return false;
        }
        // Of two shifted operands only one can fold: neither does.
        match f.uses(v) {
            [u] => match *f.kind(u.inst) {
                InstKind::Binary {
                    op: BinaryOp::Add | BinaryOp::Sub,
                    args: [a, b],
                } => shift_parts(f, if a == v { b } else { a }).is_none(),
                _ => false,
            },
            _ => false,
        }
    }

    /// A negation `0 - x` used only as the index of addresses `gep b, -x, 2^s` off a base
    /// that is not a global (`invariant-bases` makes `a[k - i]` in a loop over `i` such an
    /// address off `&a[k]`): each access takes `x` subtracted (`ldr r, [b, -x, lsl #s]`),
    /// and an address computed whole is `sub rd, b, x, lsl #s`.
    fn is_folded_negation(&self, i: Inst) -> bool {
        self.folded_negation(Value::Inst(i)).is_some()
    }

    /// `x` where `index` is such a negation `0 - x` (`is_folded_negation`).
    fn folded_negation(&self, index: Value) -> Option<Value> {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Sub,
            args: [Value::Int(0), x],
        } = *f.kind(index.as_inst()?)
        else {
            return None;
        };
        let only_indexes = f.uses(index).iter().all(|u| {
            u.index == 1
                && matches!(*f.kind(u.inst), InstKind::Gep { args: [base, _], stride }
                    if stride.is_power_of_two() && !matches!(base, Value::Global(_)))
        });
        only_indexes.then_some(x)
    }

    /// A multiplication whose only user is an addition or subtraction in its block, which
    /// computes both as one multiply-accumulate (`mla`, or `mls` for `x - a*b`). Not when the
    /// multiplication is a shift or shift-and-add anyway (cheaper than `mla`), when the other
    /// operand folds as a shift, or when the user is computed under a select's condition.
    fn is_folded_mul(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Mul,
            args: [x, y],
        } = *f.kind(i)
        else {
            return false;
        };
        let by_constant = |v: Value| {
            v.as_int()
                .is_some_and(|c| shift_and_add(c as u32).is_some())
        };
        if by_constant(x) || by_constant(y) {
            return false;
        }
        let v = Value::Inst(i);
        let [u] = f.uses(v) else {
            return false;
        };
        let InstKind::Binary { op, args: [a, b] } = *f.kind(u.inst) else {
            return false;
        };
        let other = if u.index == 0 { b } else { a };
        let is_plain_mul = |w: Value| {
            w.as_inst().is_some_and(|j| {
                matches!(
                    f.kind(j),
                    InstKind::Binary {
                        op: BinaryOp::Mul,
                        ..
                    }
                ) && f.uses(w).len() == 1
                    && f.inst_block(j) == f.inst_block(u.inst)
            })
        };
        let position_ok = match op {
            BinaryOp::Add => u.index == 1 || !is_plain_mul(other),
            BinaryOp::Sub => u.index == 1,
            _ => false,
        };
        position_ok
            && f.inst_block(u.inst) == f.inst_block(i)
            && shift_parts(f, other).is_none()
            && !self.is_predicated(u.inst)
    }

    /// A float multiplication whose only use is the right operand of an addition in its
    /// block, `a + x * y`: the addition is `vmla.f32` on a copy of `a`. VFP's `vmla` rounds
    /// the product before adding it, so it computes exactly what `vmul` and `vadd a, p` do,
    /// the NaN an addition of two NaNs gives included (the accumulator's: the product must
    /// be the right operand). `a - x * y` stays two instructions: `vmls` adds the negated
    /// product, and a NaN product would come out with its sign flipped (`x - inf * 0`
    /// prints `-nan` where `vsub` gives `nan`).
    ///
    /// The A72 forwards only a multiply-accumulate's result into the accumulator of the
    /// next one (4 cycles); an accumulator that a `vadd`, `vsub` or `vmul` computes waits
    /// the whole 9 cycles, where `vadd` would take 5, so such an addition stays `vadd`.
    fn is_folded_float_mul(&self, i: Inst) -> bool {
        let f = self.f;
        let is_fmul = |i: Inst| {
            matches!(
                f.kind(i),
                InstKind::Binary {
                    op: BinaryOp::FMul,
                    ..
                }
            )
        };
        if !is_fmul(i) {
            return false;
        }
        let [u] = f.uses(Value::Inst(i)) else {
            return false;
        };
        let InstKind::Binary {
            op: BinaryOp::FAdd,
            args: [acc, _],
        } = *f.kind(u.inst)
        else {
            return false;
        };
        u.index == 1 && f.inst_block(u.inst) == f.inst_block(i) && self.forwards_into(acc)
    }

    /// Whether `acc` reaches a multiply-accumulate as its accumulator without waiting on
    /// float arithmetic other than another multiply-accumulate: a phi, a load, a constant,
    /// or an addition folded so itself.
    fn forwards_into(&self, acc: Value) -> bool {
        let f = self.f;
        let Some(a) = acc.as_inst() else {
            return true;
        };
        match *f.kind(a) {
            InstKind::Binary {
                op: BinaryOp::FAdd,
                args: [inner, m],
            } => {
                m.as_inst().is_some_and(|m| {
                    matches!(
                        f.kind(m),
                        InstKind::Binary {
                            op: BinaryOp::FMul,
                            ..
                        }
                    ) && f.uses(Value::Inst(m)).len() == 1
                        && f.inst_block(m) == f.inst_block(a)
                }) && self.forwards_into(inner)
            }
            InstKind::Binary {
                op: BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv,
                ..
            }
            | InstKind::FNeg { .. } => false,
            _ => true,
        }
    }

    /// A division by a constant with a magic multiplier whose only use is an addition in its
    /// block: the addition takes the quotient as two shifted operands of the product `t`,
    /// `other + (t asr s) + (t lsr 31)`, which saves the quotient's own instruction (the
    /// shift keeps `t`'s sign, the bit the correction adds). The addition's other operand
    /// must be a plain value (no multiplication or shift of its own to fold).
    fn is_folded_division(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::SDiv,
            args: [x, Value::Int(d)],
        } = *f.kind(i)
        else {
            return false;
        };
        if x.is_constant()
            || !matches!(
                const_division::plan(d),
                Some(DivPlan::Magic { shift: 1.., .. })
            )
        {
            return false;
        }
        let [u] = f.uses(Value::Inst(i)) else {
            return false;
        };
        let InstKind::Binary {
            op: BinaryOp::Add,
            args,
        } = *f.kind(u.inst)
        else {
            return false;
        };
        let other = args[1 - u.index as usize];
        let plain = match other {
            Value::Inst(j) => !matches!(
                f.kind(j),
                InstKind::Binary {
                    op: BinaryOp::Mul | BinaryOp::SDiv | BinaryOp::LShr | BinaryOp::AShr,
                    ..
                }
            ),
            _ => !other.is_constant(),
        };
        plain
            && other != Value::Inst(i)
            && f.inst_block(u.inst) == f.inst_block(i)
            && !self.is_predicated(u.inst)
    }

    /// For `a + b` with a folded division as one operand: the other operand and the
    /// division.
    fn division_added(&self, op: BinaryOp, a: Value, b: Value) -> Option<(Value, Inst)> {
        if op != BinaryOp::Add {
            return None;
        }
        let folded = |v: Value| {
            v.as_inst()
                .filter(|i| self.skipped[i.index()] && self.is_folded_division(*i))
        };
        match (folded(a), folded(b)) {
            (_, Some(d)) => Some((a, d)),
            (Some(d), None) => Some((b, d)),
            (None, None) => None,
        }
    }

    /// For `a op b` with a folded multiplication as one operand: the other operand (the
    /// accumulator) and the multiplication.
    fn multiply_accumulate(&self, op: BinaryOp, a: Value, b: Value) -> Option<(Value, Inst)> {
        if !matches!(op, BinaryOp::Add | BinaryOp::Sub) {
            return None;
        }
        let folded = |v: Value| {
            v.as_inst()
                .filter(|i| self.skipped[i.index()] && self.is_folded_mul(*i))
        };
        if let Some(m) = folded(b) {
            return Some((a, m));
        }
        match (op, folded(a)) {
            (BinaryOp::Add, Some(m)) => Some((b, m)),
            _ => None,
        }
    }

    /// The source and shift of `v` when it is a shift folded into its user.
    fn shift_of(&self, v: Value) -> Option<(Value, Shift, u8)> {
        v.as_inst().filter(|i| self.skipped[i.index()])?;
        shift_parts(self.f, v)
    }

    /// An operation computed by the select that is its only user, in its block, right into
    /// the select's register and under its condition for the true value (see `select`).
    fn is_predicated(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Binary { op, .. } = *f.kind(i) else {
            return false;
        };
        match f.uses(Value::Inst(i)) {
            [u] => {
                cost_model::is_predicable(op)
                    && u.index > 0
                    && matches!(f.kind(u.inst), InstKind::Select { .. })
                    && f.inst_block(u.inst) == f.inst_block(i)
            }
            _ => false,
        }
    }

    /// The inner select of a clamp (`ir::clamp`) that is its only user: the clamp's `usat`
    /// does its work.
    fn is_clamp_inner(&self, i: Inst) -> bool {
        let f = self.f;
        if !matches!(f.kind(i), InstKind::Select { .. }) {
            return false;
        }
        match f.uses(Value::Inst(i)) {
            [u] => match *f.kind(u.inst) {
                InstKind::Select { args: [c, a, b] } => unsigned_clamp(f, c, a, b).is_some(),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether comparison `i` is made where it is used: it is only the condition of
    /// branches and selects in its own block (each of them emits the comparison again right
    /// before it reads the flags, which costs no more than comparing the materialised truth
    /// value with 0), or its one use is a chain tested in place.
    fn is_fused_compare(&self, i: Inst) -> bool {
        let f = self.f;
        if !matches!(f.kind(i), InstKind::Icmp { .. } | InstKind::Fcmp { .. }) {
            return false;
        }
        let in_chain = self
            .chain_user(i)
            .is_some_and(|c| self.chains[c.index()].is_some());
        in_chain || self.is_condition_only(i) || self.is_compared_again(i)
    }

    /// Whether `i` is an integer comparison with a constant whose every use is the condition
    /// of a branch or of a select of values (not of truth values), some in other blocks of
    /// its loop (or outside loops, as `i`):
    /// each such block compares again (one instruction, as testing a kept truth value would
    /// be, and nothing to keep but the one compared register) rather than the truth value
    /// being made into a register (`mov`, `mov<cond>`) and tested against 0. A comparison
    /// hoisted out of a loop stays made once: compared again inside, its register would
    /// live through the loop instead of the truth value's, for nothing.
    fn is_compared_again(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Icmp { args: [a, b], .. } = *f.kind(i) else {
            return false;
        };
        let uses = f.uses(Value::Inst(i));
        let innermost = |j: Inst| f.inst_block(j).and_then(|b| self.loops.innermost(b));
        !uses.is_empty()
            && (a.is_constant() || b.is_constant())
            && uses.iter().all(|u| {
                let condition = match f.kind(u.inst) {
                    InstKind::CondBr { .. } => true,
                    // A truth value's select is a link of a chain of tests, which reads
                    // its operands' registers.
                    InstKind::Select { .. } => f.inst(u.inst).ty != Type::I1,
                    _ => false,
                };
                condition && u.index == 0 && innermost(u.inst) == innermost(i)
            })
    }

    /// Whether every use of `i` is the condition of a branch or select in its block.
    fn is_condition_only(&self, i: Inst) -> bool {
        let f = self.f;
        let uses = f.uses(Value::Inst(i));
        !uses.is_empty()
            && uses.iter().all(|u| {
                u.index == 0
                    && matches!(
                        f.kind(u.inst),
                        InstKind::CondBr { .. } | InstKind::Select { .. }
                    )
                    && f.inst_block(u.inst) == f.inst_block(i)
            })
    }

    /// The chain link that is `i`'s only use, when `i` is one of its two truth values: the
    /// chain compares again wherever `i` was made (its operands are there).
    fn chain_user(&self, i: Inst) -> Option<Inst> {
        let f = self.f;
        let [u] = f.uses(Value::Inst(i)) else {
            return None;
        };
        let (x, _, y) = link(f, u.inst)?;
        (x == Value::Inst(i) || y == i).then_some(u.inst)
    }

    /// Whether the comparison or chain `i` would be tested in place, every chain it is
    /// part of being tested: a chain or comparison used only as conditions in its block,
    /// or a comparison whose one use is a chain (a float one never chains: a chain with
    /// one tested in place has no plan, and the comparison is made at its select).
    fn is_chain_tested(&self, i: Inst) -> bool {
        match self.f.kind(i) {
            InstKind::Icmp { .. } | InstKind::Fcmp { .. } => {
                self.chain_user(i).is_some() || self.is_condition_only(i)
            }
            InstKind::Select { .. } => link(self.f, i).is_some() && self.is_condition_only(i),
            _ => false,
        }
    }

    fn cast(&mut self, i: Inst, op: CastOp, a: Value) {
        let rd = self.def(i);
        let src = self.reg(a);
        match op {
            CastOp::Zext => self.emit(MInst::Copy { dst: rd, src }),
            CastOp::SiToFp => {
                let t = self.new_vreg(RegClass::Float);
                self.emit(MInst::VMovFromCore { sd: t, rn: src });
                self.emit(MInst::VCvtToFloat { sd: rd, sm: t });
            }
            CastOp::FpToSi => {
                let t = self.new_vreg(RegClass::Float);
                self.emit(MInst::VCvtToInt { sd: t, sm: src });
                self.emit(MInst::VMovToCore { rd, sn: t });
            }
            CastOp::FloatBits => self.emit(MInst::VMovToCore { rd, sn: src }),
        }
    }

    fn call(&mut self, i: Inst, callee: &Callee, args: &[Value]) {
        let f = self.f;
        let mut values: Vec<Value> = args.to_vec();
        let mut kinds: Vec<ArgKind> = args.iter().map(|a| arg_kind(f.value_type(*a))).collect();
        let (sym, format) = match callee {
            Callee::Function(id) => (symbol(&self.m.function(*id).name), None),
            Callee::Runtime(r) => (r.symbol().to_string(), None),
            Callee::Memset => ("memset".to_string(), None),
            Callee::Memcpy => ("memcpy".to_string(), None),
            Callee::Putf(s) => ("putf".to_string(), Some(string_label(*s))),
        };
        if format.is_some() {
            // Variadic: the format's address first, floats promoted to doubles.
            for k in kinds.iter_mut() {
                if *k == ArgKind::Float {
                    *k = ArgKind::VariadicDouble;
                }
            }
            kinds.insert(0, ArgKind::Int);
            values.insert(0, Value::Undef(Type::Ptr));
        }
        let (locs, stack_bytes) = abi::assign(&kinds);
        self.mf.outgoing_bytes = self.mf.outgoing_bytes.max(stack_bytes);
        // Registers holding each argument, computed before any argument register is set.
        let mut regs = Vec::with_capacity(values.len());
        for (k, &v) in values.iter().enumerate() {
            let r = match (&format, k) {
                (Some(label), 0) => {
                    let r = self.new_vreg(RegClass::Int);
                    self.emit(MInst::LoadSym {
                        rd: r,
                        sym: label.clone(),
                    });
                    r
                }
                _ => self.reg(v),
            };
            regs.push(r);
        }
        let mut uses = Vec::new();
        for (&loc, &r) in locs.iter().zip(&regs) {
            let float = self.mf.class_of(r) == RegClass::Float;
            match loc {
                ArgLoc::Stack(off) => {
                    let addr = Addr::Slot(Slot::Outgoing(off), 0);
                    self.emit(if float {
                        MInst::VStr { ss: r, addr }
                    } else {
                        MInst::Str {
                            cond: None,
                            rs: r,
                            addr,
                        }
                    });
                }
                ArgLoc::StackPair(off) => {
                    let (lo, hi) = (self.new_vreg(RegClass::Int), self.new_vreg(RegClass::Int));
                    self.emit(MInst::VToDoubleCore { lo, hi, sm: r });
                    for (part, delta) in [(lo, 0), (hi, 4)] {
                        self.emit(MInst::Str {
                            cond: None,
                            rs: part,
                            addr: Addr::Slot(Slot::Outgoing(off + delta), 0),
                        });
                    }
                }
                ArgLoc::Reg(_) | ArgLoc::RegPair(..) => {}
            }
        }
        for (&loc, &r) in locs.iter().zip(&regs) {
            match loc {
                ArgLoc::Reg(p) => {
                    self.emit(MInst::Copy {
                        dst: Reg::Phys(p),
                        src: r,
                    });
                    uses.push(Reg::Phys(p));
                }
                ArgLoc::RegPair(lo, hi) => {
                    self.emit(MInst::VToDoubleCore {
                        lo: Reg::Phys(lo),
                        hi: Reg::Phys(hi),
                        sm: r,
                    });
                    uses.extend([Reg::Phys(lo), Reg::Phys(hi)]);
                }
                ArgLoc::Stack(_) | ArgLoc::StackPair(_) => {}
            }
        }
        let ret = f.inst(i).ty;
        let result = match ret {
            Type::Void => None,
            Type::F32 => Some(Reg::Phys(PReg::S0)),
            _ => Some(Reg::Phys(PReg::R0)),
        };
        self.emit(MInst::Bl {
            sym,
            uses,
            defs: result.into_iter().collect(),
        });
        if let Some(src) = result {
            let dst = self.def(i);
            self.emit(MInst::Copy { dst, src });
        }
    }

    /// Moves the parameters from their argument registers and stack slots into vregs.
    fn receive_params(&mut self) {
        let kinds: Vec<ArgKind> = self.f.params.iter().map(|t| arg_kind(*t)).collect();
        let (locs, _) = abi::assign(&kinds);
        for (p, loc) in locs.into_iter().enumerate() {
            let dst = self.param_regs[p];
            let float = self.mf.class_of(dst) == RegClass::Float;
            match loc {
                ArgLoc::Reg(r) => self.emit(MInst::Copy {
                    dst,
                    src: Reg::Phys(r),
                }),
                ArgLoc::Stack(off) => {
                    let addr = Addr::Slot(Slot::Incoming(off), 0);
                    self.emit(if float {
                        MInst::VLdr { sd: dst, addr }
                    } else {
                        MInst::Ldr {
                            cond: None,
                            rd: dst,
                            addr,
                        }
                    });
                }
                ArgLoc::RegPair(..) | ArgLoc::StackPair(_) => {
                    unreachable!("doubles are only passed to variadic functions")
                }
            }
        }
    }

    // ---- control flow ----------------------------------------------------------------------

    /// Copies for the phis of `b`'s successors, as one parallel copy made sequential.
    fn phi_copies(&mut self, b: Block) {
        let f = self.f;
        let mut pairs = Vec::new();
        for &s in f.successors(b) {
            for phi in f.block_insts(s) {
                let InstKind::Phi { args, blocks } = f.kind(phi) else {
                    break;
                };
                if let Some(k) = blocks.iter().position(|&x| x == b) {
                    pairs.push((self.def(phi), args[k]));
                }
            }
        }
        self.in_place = true;
        let copies: Vec<(Reg, Reg)> = pairs
            .into_iter()
            .map(|(dst, v)| (dst, self.reg(v)))
            .collect();
        self.in_place = false;
        let sequence = sequentialize(&copies, |r| {
            let class = self.mf.class_of(r);
            self.mf.new_vreg(class)
        });
        for (dst, src) in sequence {
            self.emit(MInst::Copy { dst, src });
        }
    }

    /// Selects the terminator `i`; returns the successor list of its block.
    fn terminator(&mut self, i: Inst) -> Vec<MBlockId> {
        match *self.f.kind(i) {
            InstKind::Br { targets: [t] } => {
                let target = self.block_index[t.index()];
                self.emit(MInst::B { target });
                vec![target]
            }
            InstKind::CondBr {
                args: [Value::Bool(holds)],
                targets: [t, e],
            } => {
                // A branch on a constant that no pass after the last simplify-cfg folded.
                let target = self.block_index[if holds { t } else { e }.index()];
                self.emit(MInst::B { target });
                vec![target]
            }
            InstKind::CondBr {
                args: [c],
                targets: [t, e],
            } => {
                let conds = self.condition(c);
                let (then_target, else_target) =
                    (self.block_index[t.index()], self.block_index[e.index()]);
                for cond in conds {
                    self.emit(MInst::BCond {
                        cond,
                        target: then_target,
                    });
                }
                self.emit(MInst::B {
                    target: else_target,
                });
                if then_target == else_target {
                    vec![then_target]
                } else {
                    vec![then_target, else_target]
                }
            }
            InstKind::Ret { args } => {
                let mut uses = Vec::new();
                if let Some(v) = args {
                    let src = self.reg(v);
                    let dst = if self.f.ret == Type::F32 {
                        PReg::S0
                    } else {
                        PReg::R0
                    };
                    self.emit(MInst::Copy {
                        dst: Reg::Phys(dst),
                        src,
                    });
                    uses.push(Reg::Phys(dst));
                }
                self.emit(MInst::Ret { uses });
                Vec::new()
            }
            _ => unreachable!("not a terminator"),
        }
    }
}

/// What a comparison sets the flags from: its two operands, in the order `compare` emits
/// them (a constant right), and whether it compares floats.
#[derive(Clone, Copy, PartialEq)]
struct Compared(Value, Value, bool);

/// The operands a fused comparison `i` compares and the conditions under which it holds,
/// as `Selector::compare` emits it.
fn compared(f: &Function, i: Inst) -> (Compared, Vec<Cond>) {
    match *f.kind(i) {
        InstKind::Icmp { pred, args: [a, b] } => {
            let (pred, a, b) = if a.is_constant() && !b.is_constant() {
                (pred.swapped(), b, a)
            } else {
                (pred, a, b)
            };
            (Compared(a, b, false), vec![int_cond(pred)])
        }
        InstKind::Fcmp { pred, args: [a, b] } => (Compared(a, b, true), float_conds(pred).to_vec()),
        _ => unreachable!("not a comparison"),
    }
}

enum AddrPlan {
    Slot(u32, i32),
    Imm(Value, i32),
    /// At an offset from the anchor of a section (`GlobalLayout`).
    Anchored(Section, i32),
    Index(Value, Value, u8),
    /// `[base, -index, lsl #shift]`.
    IndexDown(Value, Value, u8),
}

/// How the accesses of an address at a constant offset from a base take the offset.
enum FarOffset {
    /// As their immediate.
    Near,
    /// From a register holding it.
    Index,
    /// Not at all: the address is computed.
    Computed,
}

/// The machine shift of a right shift `op` by `amount` (a constant: the verifier says so).
/// How a multiplication by `c` is one instruction on a shifted register: by 2^k as the
/// shift alone, by 2^k + 1 as an add and by 2^k - 1 as a reverse subtract of it (k >= 1).
fn shift_and_add(c: u32) -> Option<(Option<AluOp>, u32)> {
    if c > 1 && c.is_power_of_two() {
        Some((None, c))
    } else if c > 2 && (c - 1).is_power_of_two() {
        Some((Some(AluOp::Add), c - 1))
    } else if c > 2 && c < u32::MAX && (c + 1).is_power_of_two() {
        Some((Some(AluOp::Rsb), c + 1))
    } else {
        None
    }
}

/// `v` as a shifted register: a right shift by a constant, or a multiplication by 2^k
/// (k in 1..=31) as a left shift.
fn shift_parts(f: &Function, v: Value) -> Option<(Value, Shift, u8)> {
    match *f.kind(v.as_inst()?) {
        InstKind::Binary {
            op: op @ (BinaryOp::LShr | BinaryOp::AShr),
            args: [x, amount],
        } => match shift_operand(op, amount) {
            (shift, Some(amount)) => Some((x, shift, amount)),
            (_, None) => None,
        },
        InstKind::Binary {
            op: BinaryOp::Mul,
            args: [x, Value::Int(c)],
        } if !x.is_constant() && c > 1 && (c as u32).is_power_of_two() => {
            Some((x, Shift::Lsl, c.trailing_zeros() as u8))
        }
        _ => None,
    }
}

/// The shift of `op` (`lshr` or `ashr`) and its amount when that is a constant in 0..=31
/// (an immediate shift), `None` for an amount in a register.
fn shift_operand(op: BinaryOp, amount: Value) -> (Shift, Option<u8>) {
    let shift = if op == BinaryOp::LShr {
        Shift::Lsr
    } else {
        Shift::Asr
    };
    match amount {
        Value::Int(k @ 0..=31) => (shift, Some(k as u8)),
        _ => (shift, None),
    }
}

fn int_cond(p: IntPred) -> Cond {
    match p {
        IntPred::Eq => Cond::Eq,
        IntPred::Ne => Cond::Ne,
        IntPred::Slt => Cond::Lt,
        IntPred::Sle => Cond::Le,
        IntPred::Sgt => Cond::Gt,
        IntPred::Sge => Cond::Ge,
        IntPred::Ult => Cond::Lo,
        IntPred::Ule => Cond::Ls,
        IntPred::Ugt => Cond::Hi,
        IntPred::Uge => Cond::Hs,
    }
}

/// Conditions after `vcmp` + `vmrs` for each float predicate. The flags are: equal Z C,
/// less N, greater C, unordered C V.
fn float_conds(p: FloatPred) -> &'static [Cond] {
    match p {
        FloatPred::Oeq => &[Cond::Eq],
        FloatPred::One => &[Cond::Mi, Cond::Gt],
        FloatPred::Olt => &[Cond::Mi],
        FloatPred::Ole => &[Cond::Ls],
        FloatPred::Ogt => &[Cond::Gt],
        FloatPred::Oge => &[Cond::Ge],
        FloatPred::Ord => &[Cond::Vc],
        FloatPred::Ueq => &[Cond::Eq, Cond::Vs],
        FloatPred::Une => &[Cond::Ne],
        FloatPred::Ult => &[Cond::Lt],
        FloatPred::Ule => &[Cond::Le],
        FloatPred::Ugt => &[Cond::Hi],
        FloatPred::Uge => &[Cond::Pl],
        FloatPred::Uno => &[Cond::Vs],
    }
}

#[cfg(test)]
#[path = "isel_tests.rs"]
mod tests;
