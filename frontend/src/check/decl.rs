//! Declarations: global and local variables, `const` scalars and arrays, array dimensions.

use super::scope::{Entry, VarSym};
use super::Checker;
use crate::ast::{self, BaseType, InitVal};
use crate::consteval::ConstValue;
use crate::diagnostic::Diagnostic;
use crate::hir::{Global, LocalInit, Stmt, Var};
use crate::types::Type;
use sysy_runtime::Scalar;

/// Arrays may hold at most this many bytes.
const MAX_ARRAY_BYTES: u64 = i32::MAX as u64;

pub fn scalar_of(base: BaseType) -> Scalar {
    match base {
        BaseType::Int => Scalar::Int,
        BaseType::Float => Scalar::Float,
    }
}

impl Checker<'_> {
    /// Checks a declaration; at block scope, returns the statements that initialise it.
    pub(super) fn decl(&mut self, d: &ast::Decl) -> Vec<Stmt> {
        let elem = scalar_of(d.ty);
        d.defs
            .iter()
            .filter_map(|def| self.var_def(d.is_const, elem, def))
            .collect()
    }

    fn var_def(&mut self, is_const: bool, elem: Scalar, def: &ast::VarDef) -> Option<Stmt> {
        let Some(dims) = self.array_dims(&def.dims, &def.name) else {
            self.declare_invalid(&def.name);
            return None;
        };
        let ty = if dims.is_empty() {
            Type::scalar(elem)
        } else {
            Type::Array(elem, dims.clone())
        };
        if is_const || self.scopes.at_file_scope() {
            self.static_def(is_const, elem, ty, def);
            return None;
        }
        if !self.claim_name(&def.name) {
            return None;
        }
        let id = self.add_local(&def.name.name, ty.clone());
        let entry = Entry {
            sym: VarSym::Var {
                var: Var::Local(id),
                ty,
                is_const: false,
            },
            defined_at: def.name.span,
        };
        // As in C, the name is in scope from its declarator on, initialiser included.
        self.scopes.define(&def.name.name, entry);
        let init = def.init.as_ref()?;
        let init = if dims.is_empty() {
            LocalInit::Scalar(self.scalar_init(init, elem)?)
        } else {
            let elems = self.flatten_init(init, &dims)?;
            let mut checked = Vec::with_capacity(elems.len());
            let mut ok = true;
            for (index, e) in elems {
                match self.value(e) {
                    Some(v) => checked.push((index, v.convert_to(elem))),
                    None => ok = false,
                }
            }
            if !ok {
                return None;
            }
            LocalInit::Array(checked)
        };
        Some(Stmt::Init(id, init))
    }

    /// After a declaration was rejected (an array size or a constant initialiser), the name
    /// is declared all the same, so that its uses add no errors; the program is rejected
    /// anyway.
    fn declare_invalid(&mut self, name: &ast::Ident) {
        if !self.claim_name(name) {
            return;
        }
        let entry = Entry {
            sym: VarSym::Invalid,
            defined_at: name.span,
        };
        self.scopes.define(&name.name, entry);
    }

    /// A global, or a `const` anywhere: its initialiser must be constant.
    fn static_def(&mut self, is_const: bool, elem: Scalar, ty: Type, def: &ast::VarDef) {
        let name = &def.name;
        let values: Option<Vec<(u32, ConstValue)>> = match (&def.init, &ty) {
            (None, _) if is_const => {
                self.error(Diagnostic::error(
                    name.span,
                    format!("const variable '{}' must be initialized", name.name),
                ));
                None
            }
            (None, _) => Some(Vec::new()),
            (Some(init), Type::Array(_, dims)) => self.const_array_init(init, dims, elem),
            (Some(init), _) => self
                .scalar_init(init, elem)
                .and_then(|e| self.require_const(&e, "initializer element"))
                .map(|v| vec![(0, v)]),
        };
        let Some(mut values) = values else {
            self.declare_invalid(name);
            return;
        };
        if !self.claim_name(name) {
            return;
        }
        if is_const && !matches!(ty, Type::Array(..)) {
            let value = values.pop().map_or(ConstValue::zero(elem), |(_, v)| v);
            let entry = Entry {
                sym: VarSym::Const(value),
                defined_at: name.span,
            };
            self.scopes.define(&name.name, entry);
            return;
        }
        values.retain(|(_, v)| !v.is_zero_bits());
        let global_name = match &self.func {
            Some(f) => format!("{}.{}.{}", f.name, name.name, self.program.globals.len()),
            None => name.name.clone(),
        };
        self.program.globals.push(Global {
            name: global_name,
            ty: ty.clone(),
            is_const,
            init: values,
        });
        let entry = Entry {
            sym: VarSym::Var {
                var: Var::Global(self.program.globals.len() - 1),
                ty,
                is_const,
            },
            defined_at: name.span,
        };
        self.scopes.define(&name.name, entry);
    }

    fn const_array_init(
        &mut self,
        init: &InitVal,
        dims: &[u32],
        elem: Scalar,
    ) -> Option<Vec<(u32, ConstValue)>> {
        let elems = self.flatten_init(init, dims)?;
        let mut values = Vec::with_capacity(elems.len());
        let mut ok = true;
        for (index, e) in elems {
            let v = self
                .value(e)
                .and_then(|v| self.require_const(&v.convert_to(elem), "initializer element"));
            match v {
                Some(v) => values.push((index, v)),
                None => ok = false,
            }
        }
        ok.then_some(values)
    }

    /// The initialiser of a scalar: an expression, or one in braces.
    fn scalar_init(&mut self, init: &InitVal, elem: Scalar) -> Option<crate::hir::Expr> {
        let e = self.scalar_init_expr(init)?;
        Some(self.value(e)?.convert_to(elem))
    }

    /// Checks each dimension: a positive integer constant, the whole array of bounded size.
    pub(super) fn array_dims(&mut self, dims: &[ast::Expr], name: &ast::Ident) -> Option<Vec<u32>> {
        let mut out = Vec::with_capacity(dims.len());
        let mut ok = true;
        for d in dims {
            match self.array_dim(d) {
                Some(n) => out.push(n),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        let elems = out
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
        if elems.is_none_or(|n| n * 4 > MAX_ARRAY_BYTES) {
            self.error(Diagnostic::error(
                name.span,
                format!("array '{}' is too large", name.name),
            ));
            return None;
        }
        Some(out)
    }

    fn array_dim(&mut self, d: &ast::Expr) -> Option<u32> {
        let e = self.value(d)?;
        if e.ty != Type::Int {
            self.error(Diagnostic::error(
                d.span,
                format!("size of array has non-integer type '{}'", e.ty),
            ));
            return None;
        }
        match self.require_const(&e, "array size")? {
            ConstValue::Int(n) if n > 0 => Some(n as u32),
            v => {
                let shown = match v {
                    ConstValue::Int(n) => n.to_string(),
                    ConstValue::Float(f) => f.to_string(),
                };
                self.error(Diagnostic::error(
                    d.span,
                    format!("array size must be positive, but is {shown}"),
                ));
                None
            }
        }
    }
}
