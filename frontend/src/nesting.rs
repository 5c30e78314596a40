//! The bound on how deeply a parsed program may nest, checked on pest's token stream before
//! the tree is built.

use crate::diagnostic::Diagnostic;
use crate::parser::Rule;
use crate::source::Span;
use pest::iterators::Pairs;
use pest::Token;

/// How deeply the syntax tree may nest. The stages after parsing recurse over the tree; this
/// bound keeps them well inside the compiler thread's stack.
pub const MAX_DEPTH: u32 = 200_000;

/// A diagnostic if the tree of `pairs` nests deeper than `MAX_DEPTH`, at the pair found first
/// when walking the tree from the root, last child first. Each pair is one level below its
/// parent, except that an operator chain `a + b + ...` flattened in one `expr` pair becomes
/// that many nested nodes, so the children of an `expr` are as many levels below it as it has
/// children; and a `number` counts as two levels, as its literal was once a pair of its own.
/// Passes over the tokens, without recursion.
pub fn too_deep(pairs: &Pairs<Rule>) -> Option<Diagnostic> {
    (height(pairs) > MAX_DEPTH).then(|| diagnostic(deepest_pair(pairs)))
}

/// How many levels the deepest pair of `pairs` lies below the top: one pass in which each pair
/// at its end knows its children's heights.
pub fn height(pairs: &Pairs<Rule>) -> u32 {
    let mut height = 0;
    // For each open pair, its children so far and the greatest height among them.
    let mut open: Vec<(u32, u32)> = Vec::new();
    for token in pairs.clone().tokens() {
        match token {
            Token::Start { .. } => open.push((0, 0)),
            Token::End { rule, .. } => {
                let (children, highest) = open.pop().unwrap_or_default();
                let own = match rule {
                    Rule::number => 1,
                    _ if children == 0 => 0,
                    Rule::expr => children + highest,
                    _ => 1 + highest,
                };
                match open.last_mut() {
                    Some((n, h)) => {
                        *n += 1;
                        *h = (*h).max(own);
                    }
                    None => height = height.max(own),
                }
            }
        }
    }
    height
}

/// Where the pair starts that is deeper than `MAX_DEPTH` and met first walking from the root,
/// last child first. Two passes: the first counts the children of each `expr`; the second
/// walks the tokens backwards, which meets each pair at its end in the order of that walk.
fn deepest_pair(pairs: &Pairs<Rule>) -> usize {
    // Children of each `expr`, in the order the exprs end.
    let mut expr_children = Vec::new();
    let mut open_children: Vec<u32> = Vec::new();
    for token in pairs.clone().tokens() {
        match token {
            Token::Start { .. } => {
                if let Some(n) = open_children.last_mut() {
                    *n += 1;
                }
                open_children.push(0);
            }
            Token::End { rule, .. } => {
                let n = open_children.pop().unwrap_or_default();
                if rule == Rule::expr {
                    expr_children.push(n);
                }
            }
        }
    }
    // The depth of the children of each open pair, innermost last.
    let mut child_depth: Vec<u32> = Vec::new();
    let mut tokens = pairs.clone().tokens().rev();
    while let Some(token) = tokens.next() {
        match token {
            Token::End { rule, .. } => {
                let depth = child_depth.last().copied().unwrap_or_default();
                let deepest = if rule == Rule::number {
                    depth + 1
                } else {
                    depth
                };
                if deepest > MAX_DEPTH {
                    return start_of_pair(&mut tokens);
                }
                let step = match rule {
                    Rule::expr => expr_children.pop().unwrap_or_default(),
                    _ => 1,
                };
                child_depth.push(depth + step);
            }
            Token::Start { .. } => {
                child_depth.pop();
            }
        }
    }
    0
}

/// Where the pair starts whose end `tokens`, running backwards, has just passed.
fn start_of_pair<'i>(tokens: &mut impl Iterator<Item = Token<'i, Rule>>) -> usize {
    let mut open = 0u32;
    for token in tokens {
        match token {
            Token::End { .. } => open += 1,
            Token::Start { pos, .. } if open == 0 => return pos.pos(),
            Token::Start { .. } => open -= 1,
        }
    }
    0
}

fn diagnostic(at: usize) -> Diagnostic {
    Diagnostic::error(
        Span::new(at, at + 1),
        format!("program is nested too deeply (more than {MAX_DEPTH} levels)"),
    )
}
