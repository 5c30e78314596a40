//! Flattening of brace initialisers with C's rules. Elements are numbered in row-major order.
//! A scalar takes the next element; a braced list initialises the largest sub-array that
//! starts at the next element (or, when no sub-array starts there, that element alone).

use super::Checker;
use crate::ast::{Expr, InitVal};
use crate::diagnostic::Diagnostic;

impl Checker<'_> {
    /// The (element index, expression) pairs of an array initialiser, in ascending order.
    pub(super) fn flatten_init<'a>(
        &mut self,
        init: &'a InitVal,
        dims: &[u32],
    ) -> Option<Vec<(u32, &'a Expr)>> {
        match init {
            InitVal::Expr(e) => {
                self.error(Diagnostic::error(
                    e.span,
                    "array initializer must be an initializer list",
                ));
                None
            }
            InitVal::List(items, _) => {
                let mut out = Vec::new();
                self.fill(items, dims, 0, &mut out).then_some(out)
            }
        }
    }

    /// Initialises the aggregate of shape `dims` starting at element `base` from `items`.
    fn fill<'a>(
        &mut self,
        items: &'a [InitVal],
        dims: &[u32],
        base: u32,
        out: &mut Vec<(u32, &'a Expr)>,
    ) -> bool {
        let total: u32 = dims.iter().product();
        // sizes[j]: elements in a sub-array at depth j + 1, down to 1 for a scalar.
        let sizes: Vec<u32> = (1..=dims.len())
            .map(|j| dims[j..].iter().product())
            .collect();
        let mut pos = 0u32;
        let mut ok = true;
        for item in items {
            if pos >= total {
                self.error(Diagnostic::error(
                    item.span(),
                    "excess elements in array initializer",
                ));
                return false;
            }
            match item {
                InitVal::Expr(e) => {
                    out.push((base + pos, e));
                    pos += 1;
                }
                InitVal::List(sub, _) => {
                    let depth = sizes
                        .iter()
                        .position(|&s| pos.is_multiple_of(s))
                        .unwrap_or(sizes.len() - 1);
                    if depth + 1 == dims.len() {
                        match self.braced_scalar(item) {
                            Some(Some(e)) => out.push((base + pos, e)),
                            Some(None) => {}
                            None => ok = false,
                        }
                    } else {
                        ok &= self.fill(sub, &dims[depth + 1..], base + pos, out);
                    }
                    pos += sizes[depth];
                }
            }
        }
        ok
    }

    /// `{e}`, `{{e}}` or `{}` where a single element is initialised: the expression, if any.
    fn braced_scalar<'a>(&mut self, init: &'a InitVal) -> Option<Option<&'a Expr>> {
        match init {
            InitVal::Expr(e) => Some(Some(e)),
            InitVal::List(items, _) => match items.as_slice() {
                [] => Some(None),
                [one] => self.braced_scalar(one),
                [_, extra, ..] => {
                    self.error(Diagnostic::error(
                        extra.span(),
                        "excess elements in scalar initializer",
                    ));
                    None
                }
            },
        }
    }

    /// The expression initialising a scalar variable, written `e` or `{e}` (`{}` is an error).
    pub(super) fn scalar_init_expr<'a>(&mut self, init: &'a InitVal) -> Option<&'a Expr> {
        match self.braced_scalar(init)? {
            Some(e) => Some(e),
            None => {
                self.error(Diagnostic::error(
                    init.span(),
                    "scalar initializer cannot be empty",
                ));
                None
            }
        }
    }
}
