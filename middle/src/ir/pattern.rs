//! Patterns over the values of a function and rewrite rules built from them, so that
//! instruction combining reads as a table:
//!
//! ```
//! use middle::ir::pattern::*;
//! use middle::ir::BinaryOp;
//!
//! let rules = [
//!     Rule::new("x+0", add(var(X), int(0)).commute(), var(X)),
//!     Rule::new("x-x", sub(var(X), var(X)), int(0)),
//!     Rule::new(
//!         "(x+c1)+c2",
//!         add(one_use(add(var(X), int_const(C1))), int_const(C2)),
//!         add(var(X), fold(BinaryOp::Add, C1, C2)),
//!     ),
//!     Rule::new("x/c", sdiv(var(X), int_const(C1)), var(X)).when(|_, b| b.int(C1) == 1),
//! ];
//! # assert_eq!(rules.len(), 4);
//! ```
//!
//! A pattern is a tree: `var(X)` matches any value and binds it (a variable seen twice
//! must bind the same value), `int(c)` a constant, `int_const(C1)` any integer constant,
//! `add(p, q)` an instruction whose operands match `p` and `q` in that order, or either
//! order after `.commute()` when the operation is commutative (the opcode table decides),
//! and `one_use(p)` a value that has exactly one use. Matching backtracks over every
//! commutation. A rule's result is a pattern too, read as a recipe: `var(X)` is the bound
//! value, `int(c)` a constant, `add(p, q)` a new instruction, `fold(op, C1, C2)` the
//! constant `op` computes from two bound constants.

use super::entities::{Inst, Value};
use super::function::Function;
use super::instructions::{BinaryOp, CastOp, InstKind, IntPred};
use super::opcode::Opcode;
use super::semantics;
use super::types::Type;

/// A pattern variable: names a bound value, operation or predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Var(u8);

impl Var {
    /// The variable numbered `n` (below `VARS`): the named ones below take 0 to 9, the
    /// rest are free for a user's own names.
    pub const fn new(n: u8) -> Var {
        assert!((n as usize) < VARS, "a pattern variable beyond VARS");
        Var(n)
    }
}

pub const A: Var = Var(0);
pub const B: Var = Var(1);
pub const C: Var = Var(2);
pub const X: Var = Var(3);
pub const Y: Var = Var(4);
pub const Z: Var = Var(5);
pub const C1: Var = Var(6);
pub const C2: Var = Var(7);
/// Conventionally binds a binary operation.
pub const OP: Var = Var(8);
/// Conventionally binds a comparison predicate.
pub const PRED: Var = Var(9);

/// How many variables a pattern may bind.
pub const VARS: usize = 16;

/// An operation or predicate a pattern requires (`Is`) or binds (`Bind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sel<T> {
    Is(T),
    Bind(Var),
}

impl From<BinaryOp> for Sel<BinaryOp> {
    fn from(op: BinaryOp) -> Self {
        Sel::Is(op)
    }
}

impl From<IntPred> for Sel<IntPred> {
    fn from(pred: IntPred) -> Self {
        Sel::Is(pred)
    }
}

impl<T> From<Var> for Sel<T> {
    fn from(v: Var) -> Self {
        Sel::Bind(v)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Any,
    Bind(Var, Box<Pattern>),
    Int(i32),
    /// A float constant, by its bits.
    Float(u32),
    IntConst(Var),
    FloatConst(Var),
    OneUse(Box<Pattern>),
    Binary {
        op: Sel<BinaryOp>,
        args: Box<[Pattern; 2]>,
        commute: bool,
    },
    FNeg(Box<Pattern>),
    Icmp {
        pred: Sel<IntPred>,
        args: Box<[Pattern; 2]>,
    },
    Cast(CastOp, Box<Pattern>),
    /// Any other instruction of `opcode` whose operands match `args`, one each, in order
    /// (what instruction selection matches: selects, memory accesses, branches).
    Inst {
        opcode: Opcode,
        args: Box<[Pattern]>,
    },
    /// An instruction of `opcode`, whatever its operands.
    Opcode(Opcode),
    /// Only in results: `op` applied to two bound constants.
    Fold(Sel<BinaryOp>, Var, Var),
}

pub fn any() -> Pattern {
    Pattern::Any
}

/// Any value, bound to `v`.
pub fn var(v: Var) -> Pattern {
    bind(v, Pattern::Any)
}

/// A value matching `p`, bound to `v`.
pub fn bind(v: Var, p: Pattern) -> Pattern {
    Pattern::Bind(v, Box::new(p))
}

pub fn int(c: i32) -> Pattern {
    Pattern::Int(c)
}

pub fn float(c: f32) -> Pattern {
    Pattern::Float(c.to_bits())
}

/// Any integer constant, bound to `v`.
pub fn int_const(v: Var) -> Pattern {
    Pattern::IntConst(v)
}

/// Any float constant, bound to `v`.
pub fn float_const(v: Var) -> Pattern {
    Pattern::FloatConst(v)
}

/// A value with exactly one use that matches `p`.
pub fn one_use(p: Pattern) -> Pattern {
    Pattern::OneUse(Box::new(p))
}

pub fn binary(op: impl Into<Sel<BinaryOp>>, a: Pattern, b: Pattern) -> Pattern {
    Pattern::Binary {
        op: op.into(),
        args: Box::new([a, b]),
        commute: false,
    }
}

macro_rules! binary_builders {
    ($($name:ident = $op:ident),*) => {
        $(
            pub fn $name(a: Pattern, b: Pattern) -> Pattern {
                binary(BinaryOp::$op, a, b)
            }
        )*
    };
}

binary_builders!(
    add = Add,
    sub = Sub,
    mul = Mul,
    sdiv = SDiv,
    srem = SRem,
    and = And,
    lshr = LShr,
    ashr = AShr,
    fadd = FAdd,
    fsub = FSub,
    fmul = FMul,
    fdiv = FDiv
);

pub fn fneg(a: Pattern) -> Pattern {
    Pattern::FNeg(Box::new(a))
}

pub fn icmp(pred: impl Into<Sel<IntPred>>, a: Pattern, b: Pattern) -> Pattern {
    Pattern::Icmp {
        pred: pred.into(),
        args: Box::new([a, b]),
    }
}

pub fn cast(op: CastOp, a: Pattern) -> Pattern {
    Pattern::Cast(op, Box::new(a))
}

/// An instruction of `opcode` with as many operands as `args`, matching them in order
/// (for a binary operation, a comparison or a cast, its own builder also binds the
/// operation or predicate, and can commute).
pub fn inst(opcode: Opcode, args: Vec<Pattern>) -> Pattern {
    Pattern::Inst {
        opcode,
        args: args.into_boxed_slice(),
    }
}

/// An instruction of `opcode`, whatever its operands.
pub fn opcode(opcode: Opcode) -> Pattern {
    Pattern::Opcode(opcode)
}

pub fn select(c: Pattern, a: Pattern, b: Pattern) -> Pattern {
    inst(Opcode::Select, vec![c, a, b])
}

pub fn load(p: Pattern) -> Pattern {
    inst(Opcode::Load, vec![p])
}

pub fn store(x: Pattern, p: Pattern) -> Pattern {
    inst(Opcode::Store, vec![x, p])
}

/// `getelementptr base, index` of any stride.
pub fn gep(base: Pattern, index: Pattern) -> Pattern {
    inst(Opcode::Gep, vec![base, index])
}

/// A float comparison of any predicate.
pub fn fcmp(a: Pattern, b: Pattern) -> Pattern {
    inst(Opcode::Fcmp, vec![a, b])
}

pub fn cond_br(c: Pattern) -> Pattern {
    inst(Opcode::CondBr, vec![c])
}

/// In a result: the constant `op` computes from the constants bound to `a` and `b`.
pub fn fold(op: impl Into<Sel<BinaryOp>>, a: Var, b: Var) -> Pattern {
    Pattern::Fold(op.into(), a, b)
}

impl Pattern {
    /// The opcode every value matching this pattern has, if the pattern fixes one: a pass
    /// can file its rules by it, and `matches` rejects other values without work.
    pub fn root_opcode(&self) -> Option<Opcode> {
        match self {
            Pattern::Bind(_, sub) | Pattern::OneUse(sub) => sub.root_opcode(),
            Pattern::Binary {
                op: Sel::Is(op), ..
            } => Some(op.opcode()),
            Pattern::FNeg(_) => Some(Opcode::FNeg),
            Pattern::Icmp { .. } => Some(Opcode::Icmp),
            Pattern::Cast(op, _) => Some(op.opcode()),
            Pattern::Inst { opcode, .. } | Pattern::Opcode(opcode) => Some(*opcode),
            _ => None,
        }
    }

    /// The opcodes the root's two operands must have for a match (where the operand patterns
    /// fix one), and whether they may come in either order: a test cheaper than matching.
    fn operand_opcodes(&self) -> ([Option<Opcode>; 2], bool) {
        match self {
            Pattern::Bind(_, sub) | Pattern::OneUse(sub) => sub.operand_opcodes(),
            Pattern::Binary { args, commute, .. } => {
                ([args[0].root_opcode(), args[1].root_opcode()], *commute)
            }
            Pattern::Icmp { args, .. } => ([args[0].root_opcode(), args[1].root_opcode()], false),
            _ => ([None, None], false),
        }
    }

    /// How many nodes the pattern's tree has.
    fn nodes(&self) -> usize {
        1 + match self {
            Pattern::Bind(_, sub) | Pattern::OneUse(sub) | Pattern::FNeg(sub) => sub.nodes(),
            Pattern::Cast(_, sub) => sub.nodes(),
            Pattern::Binary { args, .. } | Pattern::Icmp { args, .. } => {
                args[0].nodes() + args[1].nodes()
            }
            Pattern::Inst { args, .. } => args.iter().map(Pattern::nodes).sum(),
            Pattern::Any
            | Pattern::Int(_)
            | Pattern::Float(_)
            | Pattern::IntConst(_)
            | Pattern::FloatConst(_)
            | Pattern::Opcode(_)
            | Pattern::Fold(..) => 0,
        }
    }

    /// The variables bound to the root's own operands (directly or through `one_use`), in
    /// operand order; operands the pattern does not bind have none.
    pub fn operand_vars(&self) -> Vec<Var> {
        fn var_of(p: &Pattern) -> Option<Var> {
            match p {
                Pattern::Bind(v, _) | Pattern::IntConst(v) | Pattern::FloatConst(v) => Some(*v),
                Pattern::OneUse(sub) => var_of(sub),
                _ => None,
            }
        }
        match self {
            Pattern::Bind(_, sub) | Pattern::OneUse(sub) => sub.operand_vars(),
            Pattern::Binary { args, .. } | Pattern::Icmp { args, .. } => {
                args.iter().filter_map(var_of).collect()
            }
            Pattern::FNeg(sub) | Pattern::Cast(_, sub) => var_of(sub).into_iter().collect(),
            Pattern::Inst { args, .. } => args.iter().filter_map(var_of).collect(),
            _ => Vec::new(),
        }
    }

    /// Also match with the operands swapped when the matched operation is commutative.
    pub fn commute(self) -> Pattern {
        match self {
            Pattern::Binary { op, args, .. } => Pattern::Binary {
                op,
                args,
                commute: true,
            },
            other => panic!("commute() applies to a binary pattern, not {other:?}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    Value(Value),
    Op(BinaryOp),
    Pred(IntPred),
}

/// What a `Sel` can select: an operation or a predicate, stored in bindings as a `Bound`.
trait Selectable: Copy + PartialEq {
    fn wrap(self) -> Bound;
    fn unwrap(b: Bound) -> Option<Self>;
}

impl Selectable for BinaryOp {
    fn wrap(self) -> Bound {
        Bound::Op(self)
    }

    fn unwrap(b: Bound) -> Option<Self> {
        match b {
            Bound::Op(op) => Some(op),
            _ => None,
        }
    }
}

impl Selectable for IntPred {
    fn wrap(self) -> Bound {
        Bound::Pred(self)
    }

    fn unwrap(b: Bound) -> Option<Self> {
        match b {
            Bound::Pred(p) => Some(p),
            _ => None,
        }
    }
}

/// What a successful match bound to each variable.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bindings {
    slots: [Option<Bound>; VARS],
}

impl Bindings {
    /// Binds `v` to `x`, or checks that it is already bound to `x`.
    fn bind(&mut self, v: Var, x: Bound) -> bool {
        match self.slots[v.0 as usize] {
            Some(old) => old == x,
            None => {
                self.slots[v.0 as usize] = Some(x);
                true
            }
        }
    }

    /// Checks `x` against `sel`, binding it if `sel` is a variable.
    fn bind_sel<T: Selectable>(&mut self, sel: Sel<T>, x: T) -> bool {
        match sel {
            Sel::Is(want) => want == x,
            Sel::Bind(v) => self.bind(v, x.wrap()),
        }
    }

    /// The operation or predicate `sel` names.
    fn resolve<T: Selectable>(&self, sel: Sel<T>) -> T {
        match sel {
            Sel::Is(x) => x,
            Sel::Bind(v) => self.slots[v.0 as usize]
                .and_then(T::unwrap)
                .unwrap_or_else(|| panic!("{v:?} is not bound to an operation or predicate")),
        }
    }

    /// Binds `v` to the value `x`, in place of whatever it was bound to.
    pub fn rebind(&mut self, v: Var, x: Value) {
        self.slots[v.0 as usize] = Some(Bound::Value(x));
    }

    /// The value bound to `v`, if any.
    pub fn get(&self, v: Var) -> Option<Value> {
        match self.slots[v.0 as usize] {
            Some(Bound::Value(x)) => Some(x),
            _ => None,
        }
    }

    /// The value bound to `v`; panics when the rule did not bind one.
    pub fn value(&self, v: Var) -> Value {
        self.get(v)
            .unwrap_or_else(|| panic!("{v:?} is not bound to a value"))
    }

    /// The integer constant bound to `v`.
    pub fn int(&self, v: Var) -> i32 {
        self.value(v)
            .as_int()
            .unwrap_or_else(|| panic!("{v:?} is not bound to an integer constant"))
    }

    /// The float constant bound to `v`.
    pub fn float(&self, v: Var) -> f32 {
        self.value(v)
            .as_float()
            .unwrap_or_else(|| panic!("{v:?} is not bound to a float constant"))
    }

    /// The binary operation bound to `v`.
    pub fn op(&self, v: Var) -> BinaryOp {
        self.resolve(Sel::Bind(v))
    }

    /// The comparison predicate bound to `v`.
    pub fn pred(&self, v: Var) -> IntPred {
        self.resolve(Sel::Bind(v))
    }
}

/// Matches value `v` of `f` against `p`; the bindings of the first match found.
pub fn matches(f: &Function, v: Value, p: &Pattern) -> Option<Bindings> {
    matches_if(f, v, p, &|_| true)
}

/// Matches value `v` of `f` against `p`; the bindings of the first match found that
/// `accept` takes (a commuted match is tried when the written one is not taken).
pub fn matches_if(
    f: &Function,
    v: Value,
    p: &Pattern,
    accept: &dyn Fn(&Bindings) -> bool,
) -> Option<Bindings> {
    if let Some(root) = p.root_opcode() {
        if v.as_inst().map(|i| f.kind(i).opcode()) != Some(root) {
            return None;
        }
    }
    let mut goals = Goals::default();
    goals.push(v, p);
    solve(f, goals, Bindings::default(), accept)
}

/// At most how many goals a match has pending: as many as its pattern has nodes.
const MAX_GOALS: usize = 16;

/// The goals of a match still to meet, a stack of fixed size: matching runs on every
/// instruction a pass visits, and a stack on the heap made allocation most of its cost.
#[derive(Clone, Copy)]
struct Goals<'p> {
    items: [(Value, &'p Pattern); MAX_GOALS],
    len: usize,
}

impl Default for Goals<'_> {
    fn default() -> Self {
        Goals {
            items: [(Value::Int(0), &Pattern::Any); MAX_GOALS],
            len: 0,
        }
    }
}

impl<'p> Goals<'p> {
    fn push(&mut self, v: Value, p: &'p Pattern) {
        assert!(
            self.len < MAX_GOALS,
            "a pattern of more than {MAX_GOALS} nodes"
        );
        self.items[self.len] = (v, p);
        self.len += 1;
    }

    fn pop(&mut self) -> Option<(Value, &'p Pattern)> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len])
    }
}

/// Matches every (value, pattern) goal, the last first, to bindings `accept` takes; a
/// commutable operation tries the written order with all remaining goals before the
/// swapped one.
fn solve(
    f: &Function,
    mut goals: Goals,
    mut b: Bindings,
    accept: &dyn Fn(&Bindings) -> bool,
) -> Option<Bindings> {
    while let Some((v, p)) = goals.pop() {
        let kind = v.as_inst().map(|i| f.kind(i));
        let ok = match (p, kind) {
            (Pattern::Any, _) => true,
            (Pattern::Bind(var, sub), _) => {
                goals.push(v, sub);
                b.bind(*var, Bound::Value(v))
            }
            (Pattern::Int(c), _) => v == Value::Int(*c),
            (Pattern::Float(bits), _) => v == Value::Float(*bits),
            (Pattern::IntConst(var), _) => {
                matches!(v, Value::Int(_)) && b.bind(*var, Bound::Value(v))
            }
            (Pattern::FloatConst(var), _) => {
                matches!(v, Value::Float(_)) && b.bind(*var, Bound::Value(v))
            }
            (Pattern::OneUse(sub), _) => {
                goals.push(v, sub);
                f.uses(v).len() == 1
            }
            (
                Pattern::Binary { op, args, commute },
                Some(&InstKind::Binary {
                    op: actual,
                    args: [x, y],
                }),
            ) => {
                if !b.bind_sel(*op, actual) {
                    return None;
                }
                if *commute && actual.is_commutative() {
                    let mut written = goals;
                    written.push(y, &args[1]);
                    written.push(x, &args[0]);
                    if let Some(found) = solve(f, written, b, accept) {
                        return Some(found);
                    }
                    goals.push(x, &args[1]);
                    goals.push(y, &args[0]);
                } else {
                    goals.push(y, &args[1]);
                    goals.push(x, &args[0]);
                }
                true
            }
            (Pattern::FNeg(sub), Some(&InstKind::FNeg { args: [x] })) => {
                goals.push(x, sub);
                true
            }
            (
                Pattern::Icmp { pred, args },
                Some(&InstKind::Icmp {
                    pred: actual,
                    args: [x, y],
                }),
            ) => {
                goals.push(y, &args[1]);
                goals.push(x, &args[0]);
                b.bind_sel(*pred, actual)
            }
            (
                Pattern::Cast(op, sub),
                Some(&InstKind::Cast {
                    op: actual,
                    args: [x],
                }),
            ) => {
                goals.push(x, sub);
                *op == actual
            }
            (Pattern::Inst { opcode, args }, Some(kind)) => {
                let operands = kind.operands();
                let fits = kind.opcode() == *opcode && operands.len() == args.len();
                if fits {
                    for (&x, p) in operands.iter().zip(args.iter()).rev() {
                        goals.push(x, p);
                    }
                }
                fits
            }
            (Pattern::Opcode(opcode), Some(kind)) => kind.opcode() == *opcode,
            (Pattern::Fold(..), _) => panic!("fold() only appears in a rule's result"),
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    accept(&b).then_some(b)
}

/// A condition on a match beyond its shape.
pub type Guard = fn(&Function, &Bindings) -> bool;

/// A rewrite: a value matching `pattern` (and `guard`) equals `result`.
#[derive(Clone, Debug)]
pub struct Rule {
    pub name: &'static str,
    pub pattern: Pattern,
    pub result: Pattern,
    pub guard: Option<Guard>,
    /// The pattern's `operand_opcodes`.
    operands: ([Option<Opcode>; 2], bool),
}

impl Rule {
    pub fn new(name: &'static str, pattern: Pattern, result: Pattern) -> Rule {
        assert!(
            pattern.nodes() <= MAX_GOALS,
            "rule {name}: a pattern of more than {MAX_GOALS} nodes"
        );
        Rule {
            name,
            operands: pattern.operand_opcodes(),
            pattern,
            result,
            guard: None,
        }
    }

    /// The rule, applying only to matches for which `guard` holds.
    pub fn when(self, guard: Guard) -> Rule {
        Rule {
            guard: Some(guard),
            ..self
        }
    }

    /// The bindings if `inst`'s result matches the pattern and the guard.
    pub fn match_inst(&self, f: &Function, inst: Inst) -> Option<Bindings> {
        if !self.operands_may_match(f, inst) {
            return None;
        }
        let b = matches(f, Value::Inst(inst), &self.pattern)?;
        match self.guard {
            Some(guard) if !guard(f, &b) => None,
            _ => Some(b),
        }
    }

    /// Whether `inst`'s operands have the opcodes the pattern fixes for them (in either
    /// order where it may commute); most instructions a rule is tried on fail here.
    fn operands_may_match(&self, f: &Function, inst: Inst) -> bool {
        let (want, commute) = self.operands;
        let operands = f.kind(inst).operands();
        if want == [None, None] || operands.len() != 2 {
            return true;
        }
        let opcode = |v: Value| v.as_inst().map(|i| f.kind(i).opcode());
        let fits = |a: Value, b: Value| {
            want[0].is_none_or(|w| opcode(a) == Some(w))
                && want[1].is_none_or(|w| opcode(b) == Some(w))
        };
        fits(operands[0], operands[1]) || (commute && fits(operands[1], operands[0]))
    }

    /// If the rule matches `inst`, builds its result (new instructions go right before
    /// `inst`) and returns it; replacing `inst`'s uses is the caller's choice.
    pub fn apply(&self, f: &mut Function, inst: Inst) -> Option<Value> {
        let b = self.match_inst(f, inst)?;
        Some(build(f, inst, &self.result, &b))
    }
}

/// The value `result` describes under bindings `b`, inserting instructions before `before`.
pub fn build(f: &mut Function, before: Inst, result: &Pattern, b: &Bindings) -> Value {
    let mut arg = |p: &Pattern| build(f, before, p, b);
    let (kind, ty) = match result {
        Pattern::Bind(v, sub) if **sub == Pattern::Any => return b.value(*v),
        Pattern::Int(c) => return Value::Int(*c),
        Pattern::Float(bits) => return Value::Float(*bits),
        Pattern::Fold(op, x, y) => {
            let op = b.resolve(*op);
            let bits = |v: Var| match b.value(v) {
                Value::Int(c) => c as u32,
                Value::Float(bits) => bits,
                other => panic!("fold() of {v:?}, bound to the non-constant {other:?}"),
            };
            let r = semantics::binary(op, bits(*x), bits(*y));
            return match op.ty() {
                Type::F32 => Value::Float(r),
                _ => Value::Int(r as i32),
            };
        }
        Pattern::Binary { op, args, .. } => {
            let op = b.resolve(*op);
            let args = [arg(&args[0]), arg(&args[1])];
            (InstKind::Binary { op, args }, op.ty())
        }
        Pattern::FNeg(sub) => (InstKind::FNeg { args: [arg(sub)] }, Type::F32),
        Pattern::Icmp { pred, args } => {
            let pred = b.resolve(*pred);
            let args = [arg(&args[0]), arg(&args[1])];
            (InstKind::Icmp { pred, args }, Type::I1)
        }
        Pattern::Cast(op, sub) => (
            InstKind::Cast {
                op: *op,
                args: [arg(sub)],
            },
            op.types().1,
        ),
        other => panic!("{other:?} cannot be built: a result names values with var()"),
    };
    Value::Inst(f.insert_inst_before(before, kind, ty))
}

/// Rules filed by the opcode at the root of their patterns, so that an instruction is tried
/// against only the rules that can match it.
pub struct RuleTable {
    rules: Vec<Rule>,
    /// For each opcode, the rules whose root is that opcode or not fixed, in table order.
    by_root: Vec<Vec<usize>>,
}

/// For each opcode, the indices of the patterns whose root is that opcode or not fixed, in
/// order: those that can match an instruction of that opcode.
pub fn file_by_root(patterns: &[&Pattern]) -> Vec<Vec<usize>> {
    Opcode::ALL
        .iter()
        .map(|&op| {
            (0..patterns.len())
                .filter(|&r| patterns[r].root_opcode().is_none_or(|root| root == op))
                .collect()
        })
        .collect()
}

impl RuleTable {
    pub fn new(rules: Vec<Rule>) -> RuleTable {
        let patterns: Vec<&Pattern> = rules.iter().map(|r| &r.pattern).collect();
        let by_root = file_by_root(&patterns);
        RuleTable { rules, by_root }
    }

    /// The result of the first rule in the table that matches `inst`, built right before
    /// `inst`; replacing `inst`'s uses is the caller's choice.
    pub fn apply(&self, f: &mut Function, inst: Inst) -> Option<Value> {
        let filed = &self.by_root[f.kind(inst).opcode() as usize];
        filed.iter().find_map(|&r| self.rules[r].apply(f, inst))
    }
}
