//! Decoding of a module into flat, index-based code for the interpreter: every operand is a
//! register number (constants, globals' addresses and undefined values are preloaded
//! registers), branches are indices into an edge table whose entries carry the phi copies
//! of that edge.

use crate::fast_hash::FastHashMap;
use crate::ir::{
    BinaryOp, Block, Callee, CastOp, FloatPred, Function, Inst, InstKind, IntPred, Module,
    ReduceOp, Type, Value, VectorOp,
};
use sysy_runtime::RuntimeFn;

pub type Reg = u32;

#[derive(Clone, Debug)]
pub enum Op {
    Alloca {
        dst: Reg,
        bytes: u32,
    },
    Load {
        dst: Reg,
        addr: Reg,
    },
    Store {
        val: Reg,
        addr: Reg,
    },
    /// Vectors take four consecutive registers, lane 0 first.
    VLoad {
        dst: Reg,
        addr: Reg,
    },
    VStore {
        val: Reg,
        addr: Reg,
    },
    VBinary {
        op: VectorOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Splat {
        dst: Reg,
        a: Reg,
    },
    Reduce {
        op: ReduceOp,
        dst: Reg,
        a: Reg,
    },
    /// A register copied: `extractlane` and the lanes `insertlane` keeps or sets.
    Copy {
        dst: Reg,
        src: Reg,
    },
    Gep {
        dst: Reg,
        base: Reg,
        index: Reg,
        stride: u32,
    },
    Binary {
        op: BinaryOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    FNeg {
        dst: Reg,
        a: Reg,
    },
    Ctz {
        dst: Reg,
        a: Reg,
    },
    Select {
        dst: Reg,
        cond: Reg,
        a: Reg,
        b: Reg,
    },
    Icmp {
        pred: IntPred,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Fcmp {
        pred: FloatPred,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Cast {
        op: CastOp,
        dst: Reg,
        a: Reg,
    },
    /// Calls function `func` with the registers `args[start..end]` of the call table.
    Call {
        dst: Option<Reg>,
        func: u32,
        args: (u32, u32),
    },
    Runtime {
        dst: Option<Reg>,
        func: RuntimeFn,
        args: (u32, u32),
    },
    /// `putf`: format string index; arguments with whether each is a float.
    Putf {
        format: u32,
        args: (u32, u32),
    },
    Memset {
        addr: Reg,
        byte: Reg,
        len: Reg,
    },
    Memcpy {
        dst: Reg,
        src: Reg,
        len: Reg,
    },
    Jump {
        edge: u32,
    },
    Branch {
        cond: Reg,
        then_edge: u32,
        else_edge: u32,
    },
    Ret {
        val: Option<Reg>,
    },
}

/// A control transfer: where it lands and the phi copies (`dst <- src`, in parallel).
#[derive(Clone, Debug)]
pub struct Edge {
    pub pc: u32,
    pub copies: (u32, u32),
}

#[derive(Clone, Debug)]
pub struct DecodedFn {
    pub num_regs: u32,
    /// Registers holding constants, with their bits, set when a frame starts.
    pub consts: Vec<(Reg, u32)>,
    pub code: Vec<Op>,
    pub edges: Vec<Edge>,
    /// (dst, src) register pairs referenced by edges.
    pub copies: Vec<(Reg, Reg)>,
    /// Argument registers (and for `putf`, whether each is a float) referenced by calls.
    pub call_args: Vec<(Reg, bool)>,
}

pub struct DecodedModule {
    pub functions: Vec<DecodedFn>,
    /// Initial memory image of the globals, starting at address 0.
    pub memory: Vec<u8>,
    pub strings: Vec<Vec<u8>>,
    pub main: Option<u32>,
}

/// Globals start here; address 0 stays invalid.
const GLOBAL_BASE: u32 = 16;

pub fn decode(m: &Module) -> DecodedModule {
    let mut addr = GLOBAL_BASE;
    let mut global_addrs = Vec::with_capacity(m.globals.len());
    for g in &m.globals {
        global_addrs.push(addr);
        addr += g.bytes().max(4);
        addr = addr.next_multiple_of(8);
    }
    let mut memory = vec![0u8; addr as usize];
    for (g, &base) in m.globals.iter().zip(&global_addrs) {
        for &(index, bits) in &g.init {
            let at = (base + index * 4) as usize;
            memory[at..at + 4].copy_from_slice(&bits.to_le_bytes());
        }
    }
    let functions = m
        .functions
        .iter()
        .map(|f| FnDecoder::new(f, &global_addrs).decode())
        .collect();
    DecodedModule {
        functions,
        memory,
        strings: m.strings.clone(),
        main: m.find_function("main").map(|f| f.0),
    }
}

struct FnDecoder<'a> {
    f: &'a Function,
    global_addrs: &'a [u32],
    regs: FastHashMap<Value, Reg>,
    next_reg: Reg,
    consts: Vec<(Reg, u32)>,
    code: Vec<Op>,
    edges: Vec<Edge>,
    copies: Vec<(Reg, Reg)>,
    call_args: Vec<(Reg, bool)>,
    block_pc: FastHashMap<Block, u32>,
    /// Edges whose target pc is filled in once every block has been placed.
    pending_edges: Vec<(u32, Block)>,
}

impl<'a> FnDecoder<'a> {
    fn new(f: &'a Function, global_addrs: &'a [u32]) -> Self {
        let mut regs = FastHashMap::default();
        for p in 0..f.params.len() as u32 {
            regs.insert(Value::Param(p), p);
        }
        FnDecoder {
            f,
            global_addrs,
            regs,
            next_reg: f.params.len() as u32,
            consts: Vec::new(),
            code: Vec::new(),
            edges: Vec::new(),
            copies: Vec::new(),
            call_args: Vec::new(),
            block_pc: FastHashMap::default(),
            pending_edges: Vec::new(),
        }
    }

    /// The register of a value: its first of four for a vector.
    fn reg(&mut self, v: Value) -> Reg {
        if let Some(&r) = self.regs.get(&v) {
            return r;
        }
        let r = self.next_reg;
        let width = if self.f.value_type(v).is_vector() {
            Type::LANES
        } else {
            1
        };
        self.next_reg += width;
        self.regs.insert(v, r);
        if let Value::Undef(_) = v {
            self.consts.extend((r..r + width).map(|lane| (lane, 0)));
            return r;
        }
        let bits = match v {
            Value::Int(x) => Some(x as u32),
            Value::Bool(b) => Some(b as u32),
            Value::Float(bits) => Some(bits),
            Value::Global(g) => Some(self.global_addrs[g.index()]),
            Value::Undef(_) => Some(0),
            Value::Inst(_) | Value::Param(_) => None,
        };
        if let Some(bits) = bits {
            self.consts.push((r, bits));
        }
        r
    }

    fn dst(&mut self, i: Inst) -> Reg {
        self.reg(Value::Inst(i))
    }

    /// An edge from `from` to `to` with the copies for `to`'s phis.
    fn edge(&mut self, from: Block, to: Block) -> u32 {
        let start = self.copies.len() as u32;
        for phi in self.f.phis(to) {
            if let Some(v) = self.f.phi_incoming(phi, from) {
                let src = self.reg(v);
                let dst = self.dst(phi);
                let width = if self.f.inst(phi).ty.is_vector() {
                    Type::LANES
                } else {
                    1
                };
                self.copies.extend((0..width).map(|k| (dst + k, src + k)));
            }
        }
        let id = self.edges.len() as u32;
        self.edges.push(Edge {
            pc: 0,
            copies: (start, self.copies.len() as u32),
        });
        self.pending_edges.push((id, to));
        id
    }

    fn args(&mut self, values: &[Value]) -> (u32, u32) {
        let start = self.call_args.len() as u32;
        for &v in values {
            let is_float = self.f.value_type(v) == Type::F32;
            let r = self.reg(v);
            self.call_args.push((r, is_float));
        }
        (start, self.call_args.len() as u32)
    }

    fn decode(mut self) -> DecodedFn {
        let f = self.f;
        for b in f.blocks() {
            self.block_pc.insert(b, self.code.len() as u32);
            for i in f.block_insts(b) {
                if let Some(op) = self.inst(b, i) {
                    self.code.push(op);
                }
            }
        }
        for (id, to) in std::mem::take(&mut self.pending_edges) {
            self.edges[id as usize].pc = self.block_pc[&to];
        }
        DecodedFn {
            num_regs: self.next_reg,
            consts: self.consts,
            code: self.code,
            edges: self.edges,
            copies: self.copies,
            call_args: self.call_args,
        }
    }

    fn inst(&mut self, b: Block, i: Inst) -> Option<Op> {
        let kind = self.f.kind(i).clone();
        Some(match kind {
            InstKind::Alloca { elem, count } => Op::Alloca {
                dst: self.dst(i),
                bytes: elem.bytes() * count,
            },
            InstKind::Load { args: [p] } => Op::Load {
                addr: self.reg(p),
                dst: self.dst(i),
            },
            InstKind::Store { args: [v, p] } => Op::Store {
                val: self.reg(v),
                addr: self.reg(p),
            },
            InstKind::VLoad { args: [p] } => Op::VLoad {
                addr: self.reg(p),
                dst: self.dst(i),
            },
            InstKind::VStore { args: [v, p] } => Op::VStore {
                val: self.reg(v),
                addr: self.reg(p),
            },
            InstKind::VBinary { op, args: [a, c] } => Op::VBinary {
                op,
                a: self.reg(a),
                b: self.reg(c),
                dst: self.dst(i),
            },
            InstKind::Splat { args: [a] } => Op::Splat {
                a: self.reg(a),
                dst: self.dst(i),
            },
            InstKind::ExtractLane { lane, args: [a] } => Op::Copy {
                src: self.reg(a) + lane as u32,
                dst: self.dst(i),
            },
            InstKind::InsertLane { lane, args: [a, x] } => {
                let (src, x, dst) = (self.reg(a), self.reg(x), self.dst(i));
                for k in (0..Type::LANES).filter(|&k| k != lane as u32) {
                    self.code.push(Op::Copy {
                        dst: dst + k,
                        src: src + k,
                    });
                }
                Op::Copy {
                    dst: dst + lane as u32,
                    src: x,
                }
            }
            InstKind::Reduce { op, args: [a] } => Op::Reduce {
                op,
                a: self.reg(a),
                dst: self.dst(i),
            },
            InstKind::Gep {
                args: [base, index],
                stride,
            } => Op::Gep {
                base: self.reg(base),
                index: self.reg(index),
                stride,
                dst: self.dst(i),
            },
            InstKind::Binary { op, args: [a, c] } => Op::Binary {
                op,
                a: self.reg(a),
                b: self.reg(c),
                dst: self.dst(i),
            },
            InstKind::FNeg { args: [a] } => Op::FNeg {
                a: self.reg(a),
                dst: self.dst(i),
            },
            InstKind::Ctz { args: [a] } => Op::Ctz {
                a: self.reg(a),
                dst: self.dst(i),
            },
            InstKind::Select { args: [c, a, d] } => Op::Select {
                cond: self.reg(c),
                a: self.reg(a),
                b: self.reg(d),
                dst: self.dst(i),
            },
            InstKind::Icmp { pred, args: [a, c] } => Op::Icmp {
                pred,
                a: self.reg(a),
                b: self.reg(c),
                dst: self.dst(i),
            },
            InstKind::Fcmp { pred, args: [a, c] } => Op::Fcmp {
                pred,
                a: self.reg(a),
                b: self.reg(c),
                dst: self.dst(i),
            },
            InstKind::Cast { op, args: [a] } => Op::Cast {
                op,
                a: self.reg(a),
                dst: self.dst(i),
            },
            InstKind::Call { callee, args } => {
                let args_range = self.args(&args);
                let dst = (self.f.inst(i).ty != Type::Void).then(|| self.dst(i));
                match callee {
                    Callee::Function(id) => Op::Call {
                        dst,
                        func: id.0,
                        args: args_range,
                    },
                    Callee::Runtime(func) => Op::Runtime {
                        dst,
                        func,
                        args: args_range,
                    },
                    Callee::Putf(format) => Op::Putf {
                        format,
                        args: args_range,
                    },
                    Callee::Memset => Op::Memset {
                        addr: self.reg(args[0]),
                        byte: self.reg(args[1]),
                        len: self.reg(args[2]),
                    },
                    Callee::Memcpy => Op::Memcpy {
                        dst: self.reg(args[0]),
                        src: self.reg(args[1]),
                        len: self.reg(args[2]),
                    },
                }
            }
            // Phis are assigned by the edges that enter their block.
            InstKind::Phi { .. } => {
                self.dst(i);
                return None;
            }
            InstKind::Br { targets: [t] } => Op::Jump {
                edge: self.edge(b, t),
            },
            InstKind::CondBr {
                args: [c],
                targets: [t, e],
            } => Op::Branch {
                cond: self.reg(c),
                then_edge: self.edge(b, t),
                else_edge: self.edge(b, e),
            },
            InstKind::Ret { args } => Op::Ret {
                val: args.map(|v| self.reg(v)),
            },
        })
    }
}
