//! The IR's text form. Values and blocks are numbered afresh in layout order, so printing a
//! parsed module reproduces the text exactly.
//!
//! ```text
//! @table = const i32 x 3 {0: 1, 1: 2, 2: 3}
//!
//! func @sum(%a0: ptr, %a1: i32) -> i32 {
//! bb0:
//!   br bb1
//! bb1:
//!   %0 = phi i32 [0, bb0], [%4, bb2]
//!   ...
//! }
//! ```

use super::entities::{Block, Inst, Value};
use super::function::Function;
use super::instructions::{Callee, InstKind};
use super::module::{Global, Module};
use super::types::Type;
use crate::fast_hash::FastHashMap;
use std::fmt::Write;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    for g in &m.globals {
        print_global(&mut out, g);
    }
    for f in &m.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&print_function(m, f));
    }
    out
}

fn print_global(out: &mut String, g: &Global) {
    let kind = if g.is_const { "const" } else { "global" };
    let _ = write!(out, "@{} = {kind} {} x {}", g.name, g.elem, g.len);
    if !g.init.is_empty() {
        let items: Vec<String> = g
            .init
            .iter()
            .map(|(i, bits)| format!("{i}: {}", format_bits(g.elem, *bits)))
            .collect();
        let _ = write!(out, " {{{}}}", items.join(", "));
    }
    out.push('\n');
}

fn format_bits(ty: Type, bits: u32) -> String {
    match ty {
        Type::F32 => format_float(f32::from_bits(bits)),
        _ => (bits as i32).to_string(),
    }
}

/// A float literal that reads back to the same bits: shortest decimal with a `.` or an
/// exponent, `inf`/`-inf`, or `nan:0x...` with the bits.
pub fn format_float(v: f32) -> String {
    if v.is_nan() {
        format!("nan:{:#010x}", v.to_bits())
    } else {
        format!("{v:?}")
    }
}

/// Escapes bytes for a quoted string, as the IR text and GNU `as` both read it: printable
/// ASCII as is (but `"` and `\`), other bytes as three octal digits.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s
}

/// Names for values and blocks in one function, numbered in layout order.
pub struct Names {
    insts: FastHashMap<Inst, u32>,
    blocks: FastHashMap<Block, u32>,
}

impl Names {
    pub fn new(f: &Function) -> Names {
        let mut insts = FastHashMap::default();
        let mut blocks = FastHashMap::default();
        for (n, b) in f.blocks().enumerate() {
            blocks.insert(b, n as u32);
        }
        for i in f.all_insts() {
            if f.inst(i).ty != Type::Void {
                let n = insts.len() as u32;
                insts.insert(i, n);
            }
        }
        Names { insts, blocks }
    }

    pub fn block(&self, b: Block) -> String {
        match self.blocks.get(&b) {
            Some(n) => format!("bb{n}"),
            None => format!("<removed block {}>", b.0),
        }
    }

    pub fn value(&self, m: &Module, v: Value) -> String {
        match v {
            Value::Inst(i) => match self.insts.get(&i) {
                Some(n) => format!("%{n}"),
                None => format!("<removed inst {}>", i.0),
            },
            Value::Param(p) => format!("%a{p}"),
            Value::Int(x) => x.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Float(bits) => format_float(f32::from_bits(bits)),
            Value::Global(g) => match m.globals.get(g.index()) {
                Some(g) => format!("@{}", g.name),
                None => format!("<global {}>", g.0),
            },
            Value::Undef(t) => format!("undef:{t}"),
        }
    }
}

pub fn print_function(m: &Module, f: &Function) -> String {
    let names = Names::new(f);
    let mut out = String::new();
    let params: Vec<String> = f
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: {t}"))
        .collect();
    let _ = writeln!(
        out,
        "func @{}({}) -> {} {{",
        f.name,
        params.join(", "),
        f.ret
    );
    for b in f.blocks() {
        let _ = writeln!(out, "{}:", names.block(b));
        for i in f.block_insts(b) {
            let _ = writeln!(out, "  {}", print_inst(m, f, &names, i));
        }
    }
    out.push_str("}\n");
    out
}

pub fn print_inst(m: &Module, f: &Function, names: &Names, i: Inst) -> String {
    let data = f.inst(i);
    let v = |x: &Value| names.value(m, *x);
    let body = match &data.kind {
        InstKind::Alloca { elem, count } => format!("alloca {elem} x {count}"),
        InstKind::Load { args: [p] } => format!("load {} {}", data.ty, v(p)),
        InstKind::Store { args: [x, p] } => format!("store {}, {}", v(x), v(p)),
        InstKind::VLoad { args: [p] } => format!("vload {} {}", data.ty, v(p)),
        InstKind::VStore { args: [x, p] } => format!("vstore {}, {}", v(x), v(p)),
        InstKind::VBinary { op, args: [a, b] } => format!("{} {}, {}", op.name(), v(a), v(b)),
        InstKind::Splat { args: [x] } => format!("splat {} {}", data.ty, v(x)),
        InstKind::ExtractLane { lane, args: [x] } => {
            format!("extractlane {} {}, {lane}", data.ty, v(x))
        }
        InstKind::InsertLane { lane, args: [x, y] } => {
            format!("insertlane {} {}, {}, {lane}", data.ty, v(x), v(y))
        }
        InstKind::Reduce { op, args: [x] } => format!("reduce {} {}", op.name(), v(x)),
        InstKind::Gep {
            args: [base, index],
            stride,
        } => format!("gep {}, {}, {stride}", v(base), v(index)),
        InstKind::Binary { op, args: [a, b] } => format!("{} {}, {}", op.name(), v(a), v(b)),
        InstKind::FNeg { args: [a] } => format!("fneg {}", v(a)),
        InstKind::Ctz { args: [a] } => format!("ctz {}", v(a)),
        InstKind::Icmp { pred, args: [a, b] } => {
            format!("icmp {} {}, {}", pred.name(), v(a), v(b))
        }
        InstKind::Fcmp { pred, args: [a, b] } => {
            format!("fcmp {} {}, {}", pred.name(), v(a), v(b))
        }
        InstKind::Cast { op, args: [a] } => format!("{} {}", op.name(), v(a)),
        InstKind::Select { args: [c, a, b] } => {
            format!("select {} {}, {}, {}", data.ty, v(c), v(a), v(b))
        }
        InstKind::Call { callee, args } => {
            let (name, format) = match callee {
                Callee::Function(id) => (
                    m.functions
                        .get(id.index())
                        .map_or(format!("<func {}>", id.0), |f| f.name.clone()),
                    None,
                ),
                Callee::Runtime(r) => (r.symbol().to_string(), None),
                Callee::Putf(s) => (
                    "putf".to_string(),
                    m.strings.get(*s as usize).map(|s| escape_bytes(s)),
                ),
                Callee::Memset => ("memset".to_string(), None),
                Callee::Memcpy => ("memcpy".to_string(), None),
            };
            let mut all: Vec<String> = format.map(|s| format!("\"{s}\"")).into_iter().collect();
            all.extend(args.iter().map(v));
            format!("call {} @{name}({})", data.ty, all.join(", "))
        }
        InstKind::Phi { args, blocks } => {
            let pairs: Vec<String> = args
                .iter()
                .zip(blocks)
                .map(|(a, b)| format!("[{}, {}]", v(a), names.block(*b)))
                .collect();
            format!("phi {} {}", data.ty, pairs.join(", "))
        }
        InstKind::Br { targets: [t] } => format!("br {}", names.block(*t)),
        InstKind::CondBr {
            args: [c],
            targets: [t, e],
        } => format!("condbr {}, {}, {}", v(c), names.block(*t), names.block(*e)),
        InstKind::Ret { args } => match args {
            Some(x) => format!("ret {}", v(x)),
            None => "ret".to_string(),
        },
    };
    if data.ty == Type::Void {
        body
    } else {
        format!("{} = {body}", names.value(m, Value::Inst(i)))
    }
}
