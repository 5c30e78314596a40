//! The syntax tree, as parsed: names unresolved, types unchecked, every node with its span.

use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseType {
    Int,
    Float,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnType {
    Int,
    Float,
    Void,
}

#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug)]
pub struct CompUnit {
    pub items: Vec<Item>,
}

#[derive(Debug)]
pub enum Item {
    Decl(Decl),
    Func(FuncDef),
}

/// `[const] int a, b[2] = {...};`
#[derive(Debug)]
pub struct Decl {
    pub is_const: bool,
    pub ty: BaseType,
    pub defs: Vec<VarDef>,
}

#[derive(Debug)]
pub struct VarDef {
    pub name: Ident,
    pub dims: Vec<Expr>,
    pub init: Option<InitVal>,
}

#[derive(Debug)]
pub enum InitVal {
    Expr(Expr),
    List(Vec<InitVal>, Span),
}

impl InitVal {
    pub fn span(&self) -> Span {
        match self {
            InitVal::Expr(e) => e.span,
            InitVal::List(_, span) => *span,
        }
    }
}

#[derive(Debug)]
pub struct FuncDef {
    pub ret: ReturnType,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Block,
}

/// A parameter; `dims` is `Some` for an array parameter `a[][N]...` and holds the sizes after
/// the first, empty, pair of brackets.
#[derive(Debug)]
pub struct Param {
    pub ty: BaseType,
    pub name: Ident,
    pub dims: Option<Vec<Expr>>,
}

#[derive(Debug)]
pub struct Block {
    pub items: Vec<BlockItem>,
    /// The closing brace, where falling off the end of a function happens.
    pub close: Span,
}

#[derive(Debug)]
pub enum BlockItem {
    Decl(Decl),
    Stmt(Stmt),
}

#[derive(Debug)]
pub enum Stmt {
    Assign(LVal, Expr),
    Expr(Option<Expr>),
    Block(Block),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Break(Span),
    Continue(Span),
    Return(Option<Expr>, Span),
}

#[derive(Debug)]
pub struct LVal {
    pub name: Ident,
    pub indices: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Pos,
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinaryOp {
    /// How tightly the operator binds, C's order: `||` loosest, then `&&`, equality,
    /// comparison, additive, multiplicative.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Eq | BinaryOp::Ne => 3,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge => 4,
            BinaryOp::Add | BinaryOp::Sub => 5,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 6,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

#[derive(Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug)]
pub enum ExprKind {
    Int(i32),
    Float(f32),
    /// A string literal, decoded; only valid as `putf`'s format.
    Str(Vec<u8>),
    LVal(LVal),
    Call(Ident, Vec<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}
