//! Instruction selection: one IR function (SSA, critical edges split) to machine IR over
//! virtual registers, by rules (`matcher`): the first rule whose pattern matches an
//! instruction selects it, and an instruction whose every user's rule folds it has no code
//! of its own (a compare used only by its block's branch is emitted at the branch, a
//! constant-offset or scaled-index address in the load or store that uses it). Phis become
//! copies at the end of each predecessor, through fresh temporaries so that they act in
//! parallel.
//!
//! This file holds the `Selector`, its state, and the walk over the blocks that emits each
//! instruction by its rule. `matcher` holds the rules' form and the matcher; each concern
//! has a file of its own, the first seven with their table of rules: `arithmetic` (the
//! binary operations, shifts folded into operands, casts), `compares` (comparisons, the
//! flags they set, chains of them), `selects` (conditional moves and stores), `addresses`
//! (loads, stores and `getelementptr`), `calls` (calls, parameters and the ABI), `control`
//! (terminators, and phi copies), `vectors` (NEON), `multiplication` (by constants, multiply-accumulate),
//! `division` (by constants), `operands` (registers for values, and where constants are
//! built) and `globals` (global addresses and section anchors).

mod addresses;
mod arithmetic;
mod calls;
mod compares;
mod control;
mod division;
mod globals;
mod matcher;
mod multiplication;
mod operands;
mod selects;
#[cfg(test)]
mod test_select;
mod vectors;

pub use calls::string_label;

use crate::global_layout::{GlobalLayout, Section};
use crate::mir::loops::{block_frequencies, LoopNest};
use crate::mir::*;
use crate::symbols::symbol;
use compares::Compared;
use matcher::Match;
use middle::analysis::ranges::Ranges;
use middle::analysis::{Cfg, DomTree, LoopInfo};
use middle::compare_chain::Form;
use middle::fast_hash::FastHashMap;
use middle::ir::{BinaryOp, Block, Function, GlobalId, Inst, InstKind, Module, Type, Value};

pub fn select(m: &Module, f: &Function) -> MFunction {
    with_selector(m, f, |mut s| {
        s.run();
        s.mf
    })
}

/// Runs `body` on a selector for `f`, set up with the analyses it needs.
fn with_selector<R>(m: &Module, f: &Function, body: impl FnOnce(Selector) -> R) -> R {
    let cfg = Cfg::new(f);
    let dom = DomTree::new(&cfg);
    let loops = LoopInfo::new(&cfg, &dom);
    // Value ranges tell dividends that are never negative: only divisions by constants
    // ask, so functions without them skip the analysis.
    let divides = f.all_insts().any(|i| {
        matches!(*f.kind(i), InstKind::Binary { op: BinaryOp::SDiv | BinaryOp::SRem, args: [_, b] } if b.is_constant())
    });
    let ranges = divides.then(|| Ranges::new(f, &cfg));
    let s = Selector {
        m,
        f,
        mf: MFunction::new(symbol(&f.name), f.name == "main"),
        block_index: vec![MBlockId(u32::MAX); f.block_capacity()],
        inst_regs: vec![None; f.inst_capacity()],
        param_regs: Vec::new(),
        allocas: vec![None; f.inst_capacity()],
        folded: vec![false; f.inst_capacity()],
        selected: vec![false; f.inst_capacity()],
        matches: vec![None; f.inst_capacity()],
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
        succs: Vec::new(),
    };
    body(s)
}

/// Whether instructions of `kind` have no code of their own: an `alloca` is a stack object
/// (`create_blocks_and_registers`), a phi copies at the end of each predecessor
/// (`phi_copies`).
fn has_no_code(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Alloca { .. } | InstKind::Phi { .. })
}

fn class_of(t: Type) -> RegClass {
    match t {
        Type::F32 => RegClass::Float,
        _ if t.is_vector() => RegClass::Vector,
        _ => RegClass::Int,
    }
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
    /// The instructions that every user's rule folds (`matcher`), which have no code of
    /// their own, by index.
    folded: Vec<bool>,
    /// The instructions emitted so far, by index.
    selected: Vec<bool>,
    /// The rule that selects each instruction (`matcher`), by index.
    matches: Vec<Option<Match>>,
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
    /// The successors of the block being selected, which its terminator's rule sets.
    succs: Vec<MBlockId>,
}

impl Selector<'_> {
    /// Selects the function: registers and stack objects for its values, the section
    /// anchors, what folds into what, each block in turn, then the hoisted constants and
    /// the blocks' loop depths and frequencies.
    fn run(&mut self) {
        self.prepare();
        for b in self.f.blocks().collect::<Vec<_>>() {
            self.select_block(b);
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

    /// Registers and stack objects for the function's values, the section anchors, the
    /// chains of comparisons, and the rule that selects each instruction (`matcher`).
    fn prepare(&mut self) {
        self.create_blocks_and_registers();
        self.choose_anchors();
        self.plan_chains();
        self.match_rules();
    }

    /// A machine block per block, a virtual register per parameter and per instruction
    /// result, and a stack object per `alloca`.
    fn create_blocks_and_registers(&mut self) {
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
    }

    /// Selects block `b`: the entry receives the parameters and takes the global
    /// addresses first; the phi copies for the successors go before the terminator.
    fn select_block(&mut self, b: Block) {
        let f = self.f;
        self.block = Some(b);
        self.flags = None;
        self.block_consts.clear();
        self.block_indexed.clear();
        if Some(b) == f.entry() {
            self.receive_params();
            self.global_addresses();
        }
        for i in f.block_insts(b).collect::<Vec<_>>() {
            let kind = f.kind(i);
            if kind.is_terminator() {
                self.phi_copies(b);
                self.emit_match(i);
            } else if !self.folded[i.index()] && !has_no_code(kind) {
                self.emit_match(i);
                self.selected[i.index()] = true;
            }
        }
        let block = self.mf.block_mut(self.block_index[b.index()]);
        block.insts = std::mem::take(&mut self.cur);
        block.succs = std::mem::take(&mut self.succs);
    }

    fn emit(&mut self, inst: MInst) {
        if inst.sets_flags() {
            self.flags = None;
            self.chain_flags = None;
        }
        self.cur.push(inst);
    }

    fn new_vreg(&mut self, class: RegClass) -> Reg {
        self.mf.new_vreg(class)
    }

    fn def(&self, i: Inst) -> Reg {
        self.inst_regs[i.index()].expect("a result has a register")
    }
}
