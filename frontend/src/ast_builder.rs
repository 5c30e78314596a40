//! The conversion of pest's parse tree into the AST.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::literal;
use crate::literal_list;
use crate::parser::Rule;
use crate::source::Span;
use pest::iterators::{Pair, Pairs};
use pest::Token;
use std::iter::Peekable;
use sysy_runtime::float_text;

/// What a `top_item` piece holds.
pub enum TopPiece {
    Decl(Decl),
    FuncHead(ReturnType, Ident, Vec<Param>),
}

/// What a `body_item` piece holds.
pub enum BodyPiece {
    Item(BlockItem),
    /// The closing brace of the body.
    Close(Span),
}

/// Walks pest pairs into AST nodes, collecting literal errors on the way.
#[derive(Default)]
pub struct Builder {
    /// Where in the source the text that pest parsed starts (pest's positions are offsets
    /// into the text it was given, which is a piece of the source when parsing in pieces).
    pub offset: usize,
    pub errors: Vec<Diagnostic>,
}

/// The next child pair, which the grammar guarantees to exist.
fn next<'a>(pairs: &mut impl Iterator<Item = Pair<'a, Rule>>) -> Pair<'a, Rule> {
    pairs.next().expect("grammar guarantees this child")
}

/// Pairs that carry meaning, without punctuation tokens.
fn meaningful(pair: Pair<Rule>) -> impl Iterator<Item = Pair<Rule>> {
    pair.into_inner().filter(|p| {
        !matches!(
            p.as_rule(),
            Rule::semi
                | Rule::comma
                | Rule::assign
                | Rule::lparen
                | Rule::rparen
                | Rule::lbracket
                | Rule::rbracket
                | Rule::lbrace
                | Rule::rbrace
        )
    })
}

impl Builder {
    /// The span of a pair in the source, from its first to its last token: to the end of its
    /// last child's last child, and so on down. (pest's own span of a rule may run on over the
    /// whitespace after it.) Those ends are the pair's own end token and the ones right before
    /// it in pest's token stream, back to the first start token: the innermost of them is
    /// where the span ends.
    pub fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        let mut end = s.end();
        for token in pair.clone().tokens().rev().skip(1) {
            match token {
                Token::End { pos, .. } => end = pos.pos(),
                Token::Start { .. } => break,
            }
        }
        Span::new(self.offset + s.start(), self.offset + end)
    }

    fn ident(&self, pair: Pair<Rule>) -> Ident {
        Ident {
            name: pair.as_str().to_string(),
            span: self.span(&pair),
        }
    }

    pub fn program(&mut self, mut pairs: Pairs<Rule>) -> CompUnit {
        let program = next(&mut pairs);
        let items = program
            .into_inner()
            .filter_map(|p| match p.as_rule() {
                Rule::decl => Some(Item::Decl(self.decl(p))),
                Rule::func_def => Some(Item::Func(self.func_def(p))),
                _ => None,
            })
            .collect();
        CompUnit { items }
    }

    fn decl(&mut self, pair: Pair<Rule>) -> Decl {
        let mut is_const = false;
        let mut ty = BaseType::Int;
        let mut defs = Vec::new();
        for p in meaningful(pair) {
            match p.as_rule() {
                Rule::kw_const => is_const = true,
                Rule::btype => ty = base_type(p),
                Rule::var_def => defs.push(self.var_def(p)),
                _ => {}
            }
        }
        Decl { is_const, ty, defs }
    }

    fn var_def(&mut self, pair: Pair<Rule>) -> VarDef {
        let mut inner = meaningful(pair);
        let name = self.ident(next(&mut inner));
        let dims = self.exprs(next(&mut inner));
        let init = inner.next().map(|p| self.init_val(p));
        VarDef { name, dims, init }
    }

    fn exprs(&mut self, pair: Pair<Rule>) -> Vec<Expr> {
        meaningful(pair).map(|p| self.expr(p)).collect()
    }

    fn init_val(&mut self, pair: Pair<Rule>) -> InitVal {
        let inner = next(&mut pair.into_inner());
        match inner.as_rule() {
            Rule::init_list => {
                let s = self.span(&inner);
                let mut items = Vec::new();
                for p in meaningful(inner) {
                    match p.as_rule() {
                        Rule::int_list | Rule::literal_list => self.literal_list(p, &mut items),
                        _ => items.push(self.init_val(p)),
                    }
                }
                InitVal::List(items, s)
            }
            _ => InitVal::Expr(self.expr(inner)),
        }
    }

    fn func_def(&mut self, pair: Pair<Rule>) -> FuncDef {
        let mut inner = meaningful(pair);
        let (ret, name, params) = self.signature(&mut inner);
        let body = self.block(next(&mut inner));
        FuncDef {
            ret,
            name,
            params,
            body,
        }
    }

    /// The return type, name and parameters at the front of a function's pairs.
    fn signature<'i>(
        &mut self,
        inner: &mut impl Iterator<Item = Pair<'i, Rule>>,
    ) -> (ReturnType, Ident, Vec<Param>) {
        let ret = match next(&mut next(inner).into_inner()).as_rule() {
            Rule::kw_int => ReturnType::Int,
            Rule::kw_float => ReturnType::Float,
            _ => ReturnType::Void,
        };
        let name = self.ident(next(inner));
        let params = meaningful(next(inner)).map(|p| self.param(p)).collect();
        (ret, name, params)
    }

    /// A function's return type, name and parameters from a `func_head` pair.
    pub fn func_head(&mut self, pair: Pair<Rule>) -> (ReturnType, Ident, Vec<Param>) {
        self.signature(&mut meaningful(pair))
    }

    /// A `top_item` pair: a declaration, or the head of a function.
    pub fn top_item(&mut self, pair: Pair<Rule>) -> TopPiece {
        let inner = next(&mut pair.into_inner());
        match inner.as_rule() {
            Rule::decl => TopPiece::Decl(self.decl(inner)),
            _ => {
                let (ret, name, params) = self.func_head(inner);
                TopPiece::FuncHead(ret, name, params)
            }
        }
    }

    /// A `body_item` pair: an item of a block, or its closing brace.
    pub fn body_item(&mut self, pair: Pair<Rule>) -> BodyPiece {
        let inner = next(&mut pair.into_inner());
        match inner.as_rule() {
            Rule::decl => BodyPiece::Item(BlockItem::Decl(self.decl(inner))),
            Rule::stmt => BodyPiece::Item(BlockItem::Stmt(self.stmt(inner))),
            _ => BodyPiece::Close(self.span(&inner)),
        }
    }

    fn param(&mut self, pair: Pair<Rule>) -> Param {
        let mut inner = meaningful(pair);
        let ty = base_type(next(&mut inner));
        let name = self.ident(next(&mut inner));
        let dims = inner.next().map(|p| self.exprs(p));
        Param { ty, name, dims }
    }

    fn block(&mut self, pair: Pair<Rule>) -> Block {
        let close = pair
            .clone()
            .into_inner()
            .last()
            .map(|p| self.span(&p))
            .unwrap_or_default();
        let items = meaningful(pair)
            .map(|p| match p.as_rule() {
                Rule::decl => BlockItem::Decl(self.decl(p)),
                _ => BlockItem::Stmt(self.stmt(p)),
            })
            .collect();
        Block { items, close }
    }

    fn stmt(&mut self, pair: Pair<Rule>) -> Stmt {
        let pair = next(&mut pair.into_inner());
        match pair.as_rule() {
            Rule::block => Stmt::Block(self.block(pair)),
            Rule::assign_stmt => {
                let mut inner = meaningful(pair);
                let target = self.lval(next(&mut inner));
                let value = self.expr(next(&mut inner));
                Stmt::Assign(target, value)
            }
            Rule::if_stmt => {
                let mut inner = meaningful(pair).filter(|p| p.as_rule() != Rule::kw_else);
                next(&mut inner);
                let cond = self.expr(next(&mut inner));
                let then = Box::new(self.stmt(next(&mut inner)));
                let otherwise = inner.next().map(|p| Box::new(self.stmt(p)));
                Stmt::If(cond, then, otherwise)
            }
            Rule::while_stmt => {
                let mut inner = meaningful(pair);
                next(&mut inner);
                let cond = self.expr(next(&mut inner));
                let body = Box::new(self.stmt(next(&mut inner)));
                Stmt::While(cond, body)
            }
            Rule::break_stmt => Stmt::Break(self.span(&pair)),
            Rule::continue_stmt => Stmt::Continue(self.span(&pair)),
            Rule::return_stmt => {
                let keyword = self.span(&next(&mut pair.clone().into_inner()));
                let value = meaningful(pair)
                    .find(|p| p.as_rule() == Rule::expr)
                    .map(|p| self.expr(p));
                Stmt::Return(value, keyword)
            }
            _ => Stmt::Expr(meaningful(pair).next().map(|p| self.expr(p))),
        }
    }

    fn lval(&mut self, pair: Pair<Rule>) -> LVal {
        let s = self.span(&pair);
        let mut inner = meaningful(pair);
        let name = self.ident(next(&mut inner));
        self.indexed(name, inner, s)
    }

    /// The variable `name` indexed by the `expr` pairs `indices`.
    fn indexed<'i>(
        &mut self,
        name: Ident,
        indices: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> LVal {
        LVal {
            name,
            indices: indices.map(|p| self.expr(p)).collect(),
            span,
        }
    }

    /// An `expr` pair: operands and operators in source order, grouped by precedence
    /// climbing. A prefix operator applies to the operand right after it; binary operators
    /// of equal precedence group to the left.
    fn expr(&mut self, pair: Pair<Rule>) -> Expr {
        self.binary(&mut pair.into_inner().peekable(), 0)
    }

    /// The operand at the front of `items` with the binary operators after it that bind
    /// tighter than `min` (a precedence; 0 takes them all).
    fn binary(&mut self, items: &mut Peekable<Pairs<Rule>>, min: u8) -> Expr {
        let mut lhs = self.operand(items);
        while let Some(op) = items.peek().and_then(binary_op) {
            if op.precedence() <= min {
                break;
            }
            items.next();
            let rhs = self.binary(items, op.precedence());
            lhs = Expr {
                span: lhs.span.to(rhs.span),
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            };
        }
        lhs
    }

    /// The primary at the front of `items` under the prefix operators in front of it.
    fn operand(&mut self, items: &mut Peekable<Pairs<Rule>>) -> Expr {
        let item = next(items);
        let op = match item.as_rule() {
            Rule::op_pos => UnaryOp::Pos,
            Rule::op_neg => UnaryOp::Neg,
            Rule::op_not => UnaryOp::Not,
            _ => return self.primary(item),
        };
        let rhs = self.operand(items);
        Expr {
            span: self.span(&item).to(rhs.span),
            kind: ExprKind::Unary(op, Box::new(rhs)),
        }
    }

    fn primary(&mut self, pair: Pair<Rule>) -> Expr {
        let s = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::paren => {
                let mut inner = self.expr(next(&mut meaningful(pair)));
                inner.span = s;
                return inner;
            }
            Rule::lval_or_call => {
                let mut inner = meaningful(pair).peekable();
                let name = self.ident(next(&mut inner));
                match inner.next_if(|p| p.as_rule() == Rule::args) {
                    Some(args) => {
                        let args = meaningful(args)
                            .map(|p| match p.as_rule() {
                                Rule::string => self.string(p),
                                _ => self.expr(p),
                            })
                            .collect();
                        ExprKind::Call(name, args)
                    }
                    None => ExprKind::LVal(self.indexed(name, inner, s)),
                }
            }
            _ => self.number(pair),
        };
        Expr { kind, span: s }
    }

    /// The elements of a `literal_list`, exactly as the general rules would have built them:
    /// a literal with the span of its text, under a `Unary` node from its sign if it has one.
    fn literal_list(&mut self, pair: Pair<Rule>, items: &mut Vec<InitVal>) {
        let base = self.offset + pair.as_span().start();
        for element in literal_list::elements(pair.as_str()) {
            let start = base + element.start;
            let s = Span::new(start, start + element.literal.len());
            let value = Expr {
                kind: self.literal(element.literal, element.is_float, s),
                span: s,
            };
            let expr = match element.sign {
                Some((op, at)) => Expr {
                    span: Span::new(base + at, s.end as usize),
                    kind: ExprKind::Unary(op, Box::new(value)),
                },
                None => value,
            };
            items.push(InitVal::Expr(expr));
        }
    }

    fn number(&mut self, pair: Pair<Rule>) -> ExprKind {
        let text = pair.as_str();
        self.literal(text, literal::is_float(text), self.span(&pair))
    }

    /// The value of a numeric literal; a malformed integer is reported at `s`.
    fn literal(&mut self, text: &str, is_float: bool, s: Span) -> ExprKind {
        if is_float {
            return ExprKind::Float(float_text::parse_float(text));
        }
        match literal::parse_int(text) {
            Ok(v) => ExprKind::Int(v),
            Err(msg) => {
                self.errors.push(Diagnostic::error(s, msg));
                ExprKind::Int(0)
            }
        }
    }

    fn string(&mut self, pair: Pair<Rule>) -> Expr {
        let s = self.span(&pair);
        let text = pair.as_str();
        let body = &text[1..text.len() - 1];
        let value = literal::parse_string(body).unwrap_or_else(|msg| {
            self.errors.push(Diagnostic::error(s, msg));
            Vec::new()
        });
        Expr {
            kind: ExprKind::Str(value),
            span: s,
        }
    }
}

/// The binary operator a `binop` pair stands for; `None` for any other pair.
fn binary_op(pair: &Pair<Rule>) -> Option<BinaryOp> {
    if pair.as_rule() != Rule::binop {
        return None;
    }
    Some(match pair.as_str() {
        "||" => BinaryOp::Or,
        "&&" => BinaryOp::And,
        "==" => BinaryOp::Eq,
        "!=" => BinaryOp::Ne,
        "<" => BinaryOp::Lt,
        ">" => BinaryOp::Gt,
        "<=" => BinaryOp::Le,
        ">=" => BinaryOp::Ge,
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        _ => BinaryOp::Rem,
    })
}

fn base_type(pair: Pair<Rule>) -> BaseType {
    match next(&mut pair.into_inner()).as_rule() {
        Rule::kw_float => BaseType::Float,
        _ => BaseType::Int,
    }
}
