//! Reads the text form written by `printer` back into a module.
//!
//! Names may be used before they are defined (phis, loops, calls to later functions): a
//! function's instructions are first read into a list, then built with placeholders, and
//! their operands resolved once every name is known. `;` starts a comment.

use super::entities::{Block, FuncId, GlobalId, Inst, Value};
use super::function::Function;
use super::instructions::{
    BinaryOp, Callee, CastOp, FloatPred, InstKind, IntPred, ReduceOp, VectorOp,
};
use super::module::{Global, Module};
use super::types::Type;
use std::collections::HashMap;
use sysy_runtime::RuntimeFn;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Punct(char),
    Arrow,
    Local(String),
    GlobalName(String),
    Word(String),
    Str(Vec<u8>),
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    line: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, String> {
    let mut lx = Lexer {
        chars: text.char_indices().peekable(),
        text,
        line: 1,
    };
    let mut out = Vec::new();
    while let Some(&(start, c)) = lx.chars.peek() {
        match c {
            '\n' => {
                lx.line += 1;
                lx.chars.next();
            }
            c if c.is_whitespace() => {
                lx.chars.next();
            }
            ';' => {
                while lx.chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    lx.chars.next();
                }
            }
            '"' => {
                lx.chars.next();
                out.push((Tok::Str(lx.string()?), lx.line));
            }
            '%' | '@' => {
                lx.chars.next();
                let name = lx.word();
                if name.is_empty() {
                    return Err(format!("line {}: expected a name after '{c}'", lx.line));
                }
                let tok = if c == '%' {
                    Tok::Local(name)
                } else {
                    Tok::GlobalName(name)
                };
                out.push((tok, lx.line));
            }
            '-' if text[start..].starts_with("->") => {
                lx.chars.next();
                lx.chars.next();
                out.push((Tok::Arrow, lx.line));
            }
            c if is_word_char(c) => {
                let w = lx.word();
                out.push((Tok::Word(w), lx.line));
            }
            '=' | ',' | ':' | '(' | ')' | '{' | '}' | '[' | ']' => {
                lx.chars.next();
                out.push((Tok::Punct(c), lx.line));
            }
            other => return Err(format!("line {}: unexpected character '{other}'", lx.line)),
        }
    }
    Ok(out)
}

impl Lexer<'_> {
    fn word(&mut self) -> String {
        let start = self.chars.peek().map_or(self.text.len(), |&(i, _)| i);
        let mut end = start;
        while let Some(&(i, c)) = self.chars.peek() {
            if !is_word_char(c) {
                break;
            }
            end = i + c.len_utf8();
            self.chars.next();
        }
        self.text[start..end].to_string()
    }

    fn string(&mut self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        loop {
            let Some((_, c)) = self.chars.next() else {
                return Err(format!("line {}: unterminated string", self.line));
            };
            match c {
                '"' => return Ok(out),
                '\\' => match self.chars.next() {
                    Some((_, first @ '0'..='3')) => {
                        let digits: String = std::iter::once(first)
                            .chain((0..2).filter_map(|_| self.chars.next()).map(|(_, c)| c))
                            .collect();
                        let b = u8::from_str_radix(&digits, 8)
                            .map_err(|_| format!("line {}: bad octal escape", self.line))?;
                        out.push(b);
                    }
                    Some((_, c @ ('"' | '\\'))) => out.push(c as u8),
                    _ => return Err(format!("line {}: bad escape", self.line)),
                },
                c => {
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
}

/// An operand before names are resolved.
#[derive(Clone, Debug)]
enum Operand {
    Local(String),
    Global(String),
    Const(Value),
}

/// One instruction as read: its kind with placeholder operands, the real operands, the
/// block names it refers to, and for calls the callee's name.
struct PendingInst {
    name: Option<String>,
    kind: InstKind,
    ty: Type,
    operands: Vec<Operand>,
    blocks: Vec<String>,
    callee: Option<String>,
    /// `putf`'s format string.
    format: Option<Vec<u8>>,
    line: usize,
}

struct PendingFunction {
    name: String,
    params: Vec<(String, Type)>,
    ret: Type,
    blocks: Vec<(String, Vec<PendingInst>)>,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

type PResult<T> = Result<T, String>;

impl Parser {
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.1)
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(format!("line {}: {}", self.line(), msg.into()))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn next(&mut self) -> PResult<Tok> {
        match self.toks.get(self.pos) {
            Some((t, _)) => {
                self.pos += 1;
                Ok(t.clone())
            }
            None => self.err("unexpected end of input"),
        }
    }

    fn punct(&mut self, c: char) -> PResult<()> {
        match self.next()? {
            Tok::Punct(p) if p == c => Ok(()),
            other => self.err(format!("expected '{c}', found {other:?}")),
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> PResult<String> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            other => self.err(format!("expected a word, found {other:?}")),
        }
    }

    fn keyword(&mut self, k: &str) -> PResult<()> {
        let w = self.word()?;
        if w == k {
            Ok(())
        } else {
            self.err(format!("expected '{k}', found '{w}'"))
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        let w = self.word()?;
        Type::from_name(&w).map_or_else(|| self.err(format!("unknown type '{w}'")), Ok)
    }

    fn uint(&mut self) -> PResult<u32> {
        let w = self.word()?;
        w.parse()
            .map_or_else(|_| self.err(format!("expected a count, found '{w}'")), Ok)
    }

    fn local(&mut self) -> PResult<String> {
        match self.next()? {
            Tok::Local(n) => Ok(n),
            other => self.err(format!("expected a %name, found {other:?}")),
        }
    }

    fn global_name(&mut self) -> PResult<String> {
        match self.next()? {
            Tok::GlobalName(n) => Ok(n),
            other => self.err(format!("expected an @name, found {other:?}")),
        }
    }

    fn literal(&mut self, ty: Type) -> PResult<u32> {
        let w = self.word()?;
        let v = self.constant(&w)?;
        match (ty, v) {
            (Type::F32, Value::Float(bits)) => Ok(bits),
            (Type::I32, Value::Int(x)) => Ok(x as u32),
            _ => self.err(format!("'{w}' is not a {ty} constant")),
        }
    }

    /// A constant operand spelled by word `w` (`nan` and `undef` take `:` and a suffix).
    fn constant(&mut self, w: &str) -> PResult<Value> {
        if w == "true" || w == "false" {
            return Ok(Value::Bool(w == "true"));
        }
        if w == "undef" {
            self.punct(':')?;
            return Ok(Value::Undef(self.ty()?));
        }
        if w == "nan" {
            self.punct(':')?;
            let bits = self.word()?;
            let hex = bits.trim_start_matches("0x");
            return u32::from_str_radix(hex, 16)
                .map(Value::Float)
                .or_else(|_| self.err(format!("bad nan bits '{bits}'")));
        }
        let is_float = w.contains(['.', 'e', 'E']) || w.ends_with("inf");
        if is_float {
            return w
                .parse::<f32>()
                .map(Value::float)
                .or_else(|_| self.err(format!("bad float '{w}'")));
        }
        w.parse::<i32>()
            .map(Value::Int)
            .or_else(|_| self.err(format!("bad constant '{w}'")))
    }

    fn operand(&mut self) -> PResult<Operand> {
        match self.next()? {
            Tok::Local(n) => Ok(Operand::Local(n)),
            Tok::GlobalName(n) => Ok(Operand::Global(n)),
            Tok::Word(w) => Ok(Operand::Const(self.constant(&w)?)),
            other => self.err(format!("expected an operand, found {other:?}")),
        }
    }

    fn operands(&mut self, n: usize) -> PResult<Vec<Operand>> {
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            if k > 0 {
                self.punct(',')?;
            }
            out.push(self.operand()?);
        }
        Ok(out)
    }

    fn block_name(&mut self) -> PResult<String> {
        let w = self.word()?;
        if w.starts_with("bb") {
            Ok(w)
        } else {
            self.err(format!("expected a block name, found '{w}'"))
        }
    }

    fn module(&mut self) -> PResult<(Vec<Global>, Vec<PendingFunction>)> {
        let mut globals = Vec::new();
        let mut functions = Vec::new();
        while let Some(t) = self.peek() {
            match t {
                Tok::GlobalName(_) => globals.push(self.global()?),
                Tok::Word(w) if w == "func" => functions.push(self.function()?),
                other => {
                    let msg = format!("expected a global or 'func', found {other:?}");
                    return self.err(msg);
                }
            }
        }
        Ok((globals, functions))
    }

    fn global(&mut self) -> PResult<Global> {
        let name = self.global_name()?;
        self.punct('=')?;
        let kind = self.word()?;
        let is_const = match kind.as_str() {
            "const" => true,
            "global" => false,
            _ => return self.err(format!("expected 'global' or 'const', found '{kind}'")),
        };
        let elem = self.ty()?;
        self.keyword("x")?;
        let len = self.uint()?;
        let mut init = Vec::new();
        if self.eat_punct('{') {
            loop {
                let index = self.uint()?;
                self.punct(':')?;
                init.push((index, self.literal(elem)?));
                if !self.eat_punct(',') {
                    break;
                }
            }
            self.punct('}')?;
        }
        Ok(Global {
            name,
            elem,
            len,
            init,
            is_const,
        })
    }

    fn function(&mut self) -> PResult<PendingFunction> {
        self.keyword("func")?;
        let name = self.global_name()?;
        self.punct('(')?;
        let mut params = Vec::new();
        if !self.eat_punct(')') {
            loop {
                let p = self.local()?;
                self.punct(':')?;
                params.push((p, self.ty()?));
                if !self.eat_punct(',') {
                    break;
                }
            }
            self.punct(')')?;
        }
        match self.next()? {
            Tok::Arrow => {}
            other => return self.err(format!("expected '->', found {other:?}")),
        }
        let ret = self.ty()?;
        self.punct('{')?;
        let mut blocks: Vec<(String, Vec<PendingInst>)> = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    break;
                }
                Some(_) if self.at_block_label() => {
                    let label = self.word()?;
                    self.punct(':')?;
                    blocks.push((label, Vec::new()));
                }
                Some(_) => {
                    let inst = self.inst()?;
                    match blocks.last_mut() {
                        Some((_, insts)) => insts.push(inst),
                        None => return self.err("instruction outside a block"),
                    }
                }
                None => return self.err("unexpected end of input in function"),
            }
        }
        Ok(PendingFunction {
            name,
            params,
            ret,
            blocks,
        })
    }

    fn inst(&mut self) -> PResult<PendingInst> {
        let line = self.line();
        let name = match self.peek() {
            Some(Tok::Local(_)) => {
                let n = self.local()?;
                self.punct('=')?;
                Some(n)
            }
            _ => None,
        };
        let op = self.word()?;
        let u = Value::Undef(Type::Void);
        let mut operands = Vec::new();
        let mut blocks = Vec::new();
        let mut callee = None;
        let mut format = None;
        let (kind, ty) = match op.as_str() {
            "alloca" => {
                let elem = self.ty()?;
                self.keyword("x")?;
                let count = self.uint()?;
                (InstKind::Alloca { elem, count }, Type::Ptr)
            }
            "load" => {
                let ty = self.ty()?;
                operands = self.operands(1)?;
                (InstKind::Load { args: [u] }, ty)
            }
            "store" => {
                operands = self.operands(2)?;
                (InstKind::Store { args: [u, u] }, Type::Void)
            }
            "vload" => {
                let ty = self.ty()?;
                operands = self.operands(1)?;
                (InstKind::VLoad { args: [u] }, ty)
            }
            "vstore" => {
                operands = self.operands(2)?;
                (InstKind::VStore { args: [u, u] }, Type::Void)
            }
            "splat" => {
                let ty = self.ty()?;
                operands = self.operands(1)?;
                (InstKind::Splat { args: [u] }, ty)
            }
            "extractlane" => {
                let ty = self.ty()?;
                operands = self.operands(1)?;
                let lane = self.lane()?;
                (InstKind::ExtractLane { lane, args: [u] }, ty)
            }
            "insertlane" => {
                let ty = self.ty()?;
                operands = self.operands(2)?;
                let lane = self.lane()?;
                (InstKind::InsertLane { lane, args: [u, u] }, ty)
            }
            "reduce" => {
                let name = self.word()?;
                let Some(op) = ReduceOp::from_name(&name) else {
                    return self.err(format!("unknown reduction '{name}'"));
                };
                operands = self.operands(1)?;
                (InstKind::Reduce { op, args: [u] }, Type::I32)
            }
            "gep" => {
                operands = self.operands(2)?;
                self.punct(',')?;
                let stride = self.uint()?;
                (
                    InstKind::Gep {
                        args: [u, u],
                        stride,
                    },
                    Type::Ptr,
                )
            }
            "fneg" => {
                operands = self.operands(1)?;
                (InstKind::FNeg { args: [u] }, Type::F32)
            }
            "ctz" => {
                operands = self.operands(1)?;
                (InstKind::Ctz { args: [u] }, Type::I32)
            }
            "icmp" | "fcmp" => {
                let p = self.word()?;
                operands = self.operands(2)?;
                let kind = if op == "icmp" {
                    match IntPred::from_name(&p) {
                        Some(pred) => InstKind::Icmp { pred, args: [u, u] },
                        None => return self.err(format!("unknown icmp predicate '{p}'")),
                    }
                } else {
                    match FloatPred::from_name(&p) {
                        Some(pred) => InstKind::Fcmp { pred, args: [u, u] },
                        None => return self.err(format!("unknown fcmp predicate '{p}'")),
                    }
                };
                (kind, Type::I1)
            }
            "select" => {
                let ty = self.ty()?;
                operands = self.operands(3)?;
                (InstKind::Select { args: [u, u, u] }, ty)
            }
            "call" => {
                let ty = self.ty()?;
                callee = Some(self.global_name()?);
                self.punct('(')?;
                if !self.eat_punct(')') {
                    loop {
                        match self.next()? {
                            Tok::Str(s) => format = Some(s),
                            _ => {
                                self.pos -= 1;
                                operands.push(self.operand()?);
                            }
                        }
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                    self.punct(')')?;
                }
                let args = vec![u; operands.len()];
                (
                    InstKind::Call {
                        callee: Callee::Memset,
                        args,
                    },
                    ty,
                )
            }
            "phi" => {
                let ty = self.ty()?;
                loop {
                    self.punct('[')?;
                    operands.push(self.operand()?);
                    self.punct(',')?;
                    blocks.push(self.block_name()?);
                    self.punct(']')?;
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                let args = vec![u; operands.len()];
                let placeholder = vec![Block(0); operands.len()];
                (
                    InstKind::Phi {
                        args,
                        blocks: placeholder,
                    },
                    ty,
                )
            }
            "br" => {
                blocks.push(self.block_name()?);
                (
                    InstKind::Br {
                        targets: [Block(0)],
                    },
                    Type::Void,
                )
            }
            "condbr" => {
                operands = self.operands(1)?;
                self.punct(',')?;
                blocks.push(self.block_name()?);
                self.punct(',')?;
                blocks.push(self.block_name()?);
                (
                    InstKind::CondBr {
                        args: [u],
                        targets: [Block(0); 2],
                    },
                    Type::Void,
                )
            }
            "ret" => {
                // Instructions take one line each: a value follows on the same line.
                let has_value = self.toks.get(self.pos).is_some_and(|t| t.1 == line);
                if has_value {
                    operands = self.operands(1)?;
                    (InstKind::Ret { args: Some(u) }, Type::Void)
                } else {
                    (InstKind::Ret { args: None }, Type::Void)
                }
            }
            other => {
                if let Some(bop) = BinaryOp::from_name(other) {
                    operands = self.operands(2)?;
                    (
                        InstKind::Binary {
                            op: bop,
                            args: [u, u],
                        },
                        bop.ty(),
                    )
                } else if let Some(vop) = VectorOp::from_name(other) {
                    operands = self.operands(2)?;
                    (
                        InstKind::VBinary {
                            op: vop,
                            args: [u, u],
                        },
                        vop.ty(),
                    )
                } else if let Some(cop) = CastOp::from_name(other) {
                    operands = self.operands(1)?;
                    (InstKind::Cast { op: cop, args: [u] }, cop.types().1)
                } else {
                    return self.err(format!("unknown instruction '{other}'"));
                }
            }
        };
        Ok(PendingInst {
            name,
            kind,
            ty,
            operands,
            blocks,
            callee,
            format,
            line,
        })
    }

    /// `, N`: the lane of `extractlane` and `insertlane`.
    fn lane(&mut self) -> PResult<u8> {
        self.punct(',')?;
        let lane = self.uint()?;
        if lane >= Type::LANES {
            return self.err(format!("lane {lane} of a vector of {} lanes", Type::LANES));
        }
        Ok(lane as u8)
    }

    fn at_block_label(&self) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.starts_with("bb"))
            && self.toks.get(self.pos + 1).map(|t| &t.0) == Some(&Tok::Punct(':'))
    }
}

/// Parses a whole module.
pub fn parse_module(text: &str) -> Result<Module, String> {
    let mut p = Parser {
        toks: lex(text)?,
        pos: 0,
    };
    let (globals, pending) = p.module()?;
    let mut m = Module {
        globals,
        strings: Vec::new(),
        functions: Vec::new(),
    };
    let mut func_ids = HashMap::new();
    for (i, pf) in pending.iter().enumerate() {
        if func_ids.insert(pf.name.clone(), FuncId(i as u32)).is_some() {
            return Err(format!("function @{} defined twice", pf.name));
        }
    }
    for pf in pending {
        let f = build_function(&mut m, &func_ids, pf)?;
        m.functions.push(f);
    }
    Ok(m)
}

fn resolve_callee(
    m: &mut Module,
    funcs: &HashMap<String, FuncId>,
    name: &str,
    format: Option<Vec<u8>>,
    line: usize,
) -> PResult<Callee> {
    if let Some(fmt) = format {
        return Ok(Callee::Putf(m.intern_string(&fmt)));
    }
    if let Some(&id) = funcs.get(name) {
        return Ok(Callee::Function(id));
    }
    match name {
        "memset" => return Ok(Callee::Memset),
        "memcpy" => return Ok(Callee::Memcpy),
        _ => {}
    }
    RuntimeFn::ALL
        .into_iter()
        .find(|r| r.symbol() == name && *r != RuntimeFn::Putf)
        .map(Callee::Runtime)
        .ok_or_else(|| format!("line {line}: unknown function @{name}"))
}

fn build_function(
    m: &mut Module,
    funcs: &HashMap<String, FuncId>,
    pf: PendingFunction,
) -> PResult<Function> {
    let params: HashMap<String, u32> = pf
        .params
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), i as u32))
        .collect();
    let mut f = Function::new(pf.name, pf.params.iter().map(|p| p.1).collect(), pf.ret);
    let mut block_ids: HashMap<String, Block> = HashMap::new();
    for (label, _) in &pf.blocks {
        let b = f.add_block();
        if block_ids.insert(label.clone(), b).is_some() {
            return Err(format!("block {label} defined twice in @{}", f.name));
        }
    }
    let block = |name: &String, line: usize| {
        block_ids
            .get(name)
            .copied()
            .ok_or_else(|| format!("line {line}: unknown block {name}"))
    };
    let mut values: HashMap<String, Inst> = HashMap::new();
    let mut created = Vec::new();
    for (label, insts) in pf.blocks {
        let b = block_ids[&label];
        for pi in insts {
            let mut kind = pi.kind;
            let targets: Vec<Block> = pi
                .blocks
                .iter()
                .map(|n| block(n, pi.line))
                .collect::<PResult<_>>()?;
            match &mut kind {
                InstKind::Phi { blocks, .. } => *blocks = targets,
                other => other.targets_mut().copy_from_slice(&targets),
            }
            if let InstKind::Call { callee, .. } = &mut kind {
                let name = pi.callee.as_deref().unwrap_or_default();
                *callee = resolve_callee(m, funcs, name, pi.format, pi.line)?;
            }
            let inst = f.append_inst(b, kind, pi.ty);
            if let Some(n) = pi.name {
                if values.insert(n.clone(), inst).is_some() {
                    return Err(format!("line {}: %{n} defined twice", pi.line));
                }
            }
            created.push((inst, pi.operands, pi.line));
        }
    }
    for (inst, operands, line) in created {
        for (k, op) in operands.into_iter().enumerate() {
            let v = match op {
                Operand::Const(v) => v,
                Operand::Local(n) => match (params.get(&n), values.get(&n)) {
                    (Some(&p), _) => Value::Param(p),
                    (None, Some(&i)) => Value::Inst(i),
                    (None, None) => return Err(format!("line {line}: unknown value %{n}")),
                },
                Operand::Global(n) => match m.find_global(&n) {
                    Some(GlobalId(g)) => Value::Global(GlobalId(g)),
                    None => return Err(format!("line {line}: unknown global @{n}")),
                },
            };
            f.set_operand(inst, k, v);
        }
    }
    Ok(f)
}
