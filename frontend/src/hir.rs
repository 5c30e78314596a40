//! The checked program: every name resolved to a variable or function, every expression typed,
//! implicit conversions explicit, constants folded, initialisers flattened. This is what the
//! middle end lowers.

use crate::ast::{BinaryOp, UnaryOp};
use crate::consteval::ConstValue;
use crate::source::Span;
use crate::types::Type;
use sysy_runtime::{RuntimeFn, Scalar};

pub type GlobalId = usize;
pub type FuncId = usize;
pub type LocalId = usize;

#[derive(Debug)]
pub struct Program {
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
}

/// A global variable, or a `const` array (global or local: a constant array is the same in
/// every activation, so a local one lives here too, under a name no SysY identifier can take).
#[derive(Debug)]
pub struct Global {
    pub name: String,
    /// `Int`, `Float` or `Array`.
    pub ty: Type,
    pub is_const: bool,
    /// Flattened initialiser in row-major order; elements not listed are zero.
    pub init: Vec<(u32, ConstValue)>,
}

#[derive(Debug)]
pub struct Function {
    pub name: String,
    /// `Void`, `Int` or `Float`.
    pub ret: Type,
    /// The parameters, as the first locals in order.
    pub params: Vec<LocalId>,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
}

#[derive(Debug)]
pub struct Local {
    pub name: String,
    /// `Int`, `Float`, `Array` or (parameters only) `Pointer`.
    pub ty: Type,
}

#[derive(Debug)]
pub enum Stmt {
    /// Where a local's declaration with an initialiser is reached.
    Init(LocalId, LocalInit),
    Assign(Place, Expr),
    Expr(Expr),
    Block(Vec<Stmt>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
}

#[derive(Debug)]
pub enum LocalInit {
    Scalar(Expr),
    /// Flattened array initialiser, ascending indices; every unlisted element is zero.
    Array(Vec<(u32, Expr)>),
}

/// A variable or an element (or row) of an array variable.
#[derive(Debug)]
pub struct Place {
    pub var: Var,
    pub indices: Vec<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    Local(LocalId),
    Global(GlobalId),
}

#[derive(Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Debug)]
pub enum ExprKind {
    Const(ConstValue),
    /// Reads a scalar variable or array element.
    Load(Place),
    /// The address of the first element of an array or of one of its rows; its type is a
    /// `Pointer`.
    ArrayAddr(Place),
    /// `-` or `!` (never `+`); `!` gives an int.
    Unary(UnaryOp, Box<Expr>),
    /// Arithmetic or comparison on operands of the same scalar type; comparisons give an int.
    /// Never `&&` or `||`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Short-circuit `&&` (`true`) or `||` (`false`), giving an int.
    Logical(bool, Box<Expr>, Box<Expr>),
    Call(Callee, Vec<Expr>),
    /// Converts a scalar to the other scalar type.
    Convert(Scalar, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    Function(FuncId),
    Runtime(RuntimeFn),
    /// `putf` with its format string; the arguments are the values after the format.
    Putf(Vec<u8>),
}

impl Expr {
    pub fn as_const(&self) -> Option<ConstValue> {
        match self.kind {
            ExprKind::Const(v) => Some(v),
            _ => None,
        }
    }
}
