//! instcombine's rewrites that move constants outward: the constant parts of an address,
//! where a load or store takes them as its immediate offset, and a constant term out of a
//! sum of variables.

use super::binary_before;
use crate::ir::{BinaryOp, Function, Inst, InstKind, Type, Value};

/// Constant parts of an address move outward (those a load or store can take as its
/// immediate offset), where the access takes them and value numbering shares the variable part between neighbouring
/// accesses (`a[i-1]`, `a[i]`, `a[i+1]`): `gep b, x + c, s` is `gep (gep b, x, s), c, s`,
/// `gep (gep b, c, s1), x, s2` is `gep (gep b, x, s2), c, s1`, and two constant steps make
/// one of stride 1 (`gep (gep b, c1, s1), c2, s2` is `gep b, c1*s1 + c2*s2, 1`). A
/// constant step alone counts in bytes too (`gep b, c, s` is `gep b, c*s, 1`), so equal
/// offsets look equal to value numbering; a step of 0 is no step. Addresses wrap like the integers, so each form
/// is the same address.
pub(super) fn constant_offsets_outward(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Gep {
        args: [base, index],
        stride,
    } = *f.kind(i)
    else {
        return None;
    };
    if index == Value::Int(0) {
        return Some(base);
    }
    let gep = |f: &mut Function, b: Value, x: Value, s: u32| {
        let kind = InstKind::Gep {
            args: [b, x],
            stride: s,
        };
        Value::Inst(f.insert_inst_before(i, kind, Type::Ptr))
    };
    if let Some(sum) = index.as_inst() {
        if let InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        } = *f.kind(sum)
        {
            if !x.is_constant()
                && is_small_offset(i64::from(c) * i64::from(stride))
                && has_neighbour(f, base, x, stride, sum)
            {
                let variable = gep(f, base, x, stride);
                return Some(gep(f, variable, Value::Int(c), stride));
            }
        }
    }
    let Some(InstKind::Gep {
        args: [b, Value::Int(c1)],
        stride: s1,
    }) = base.as_inst().map(|g| f.kind(g).clone())
    else {
        return match index {
            Value::Int(c) if stride != 1 => {
                Some(gep(f, base, Value::Int(c.wrapping_mul(stride as i32)), 1))
            }
            _ => None,
        };
    };
    let inner_bytes = i64::from(c1) * i64::from(s1);
    match index {
        Value::Int(c2) => {
            let bytes = c1
                .wrapping_mul(s1 as i32)
                .wrapping_add(c2.wrapping_mul(stride as i32));
            Some(gep(f, b, Value::Int(bytes), 1))
        }
        x if is_small_offset(inner_bytes) => {
            let variable = gep(f, b, x, stride);
            Some(gep(f, variable, Value::Int(c1), s1))
        }
        _ => None,
    }
}

/// A constant term moves out of a sum of variables: `(x + c) + y` is `(x + y) + c` when
/// `x + c` has no other use, so that `x + y` is the same value wherever it appears (the
/// copies of an unrolled loop's body index `(i + 1) * n + j` as `(i * n + j) + n`) and the
/// constant can become an address's immediate offset.
pub(super) fn constant_term_outward(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [a, b],
    } = *f.kind(i)
    else {
        return None;
    };
    if a.is_constant() || b.is_constant() {
        return None;
    }
    let split = |v: Value| match v.as_inst().map(|x| f.kind(x)) {
        Some(&InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        }) if f.uses(v).len() == 1 => Some((x, c)),
        _ => None,
    };
    let (x, c, y) = match (split(a), split(b)) {
        (Some((x, c)), _) => (x, c, b),
        (None, Some((x, c))) => (x, c, a),
        (None, None) => return None,
    };
    let sum = binary_before(f, i, BinaryOp::Add, x, y);
    Some(binary_before(f, i, BinaryOp::Add, sum, Value::Int(c)))
}

/// Whether a load or store takes a byte offset as its immediate (`ldr` reaches 4095 bytes
/// either way). A larger constant step stays inside the address, where it is computed
/// with the part of the address that does not change in the inner loop (`x[i-1][j][k]`
/// keeps its plane `x[i-1]`).
fn is_small_offset(bytes: i64) -> bool {
    bytes.abs() <= 4095
}

/// Whether another address `gep base, x, stride` or `gep base, x + c', stride` (with
/// `c'` other than `sum`'s `c`: a copy of the same sum on another side of a branch shares
/// nothing) exists: only then does splitting `gep base, x + c, stride` share its variable
/// part. Alone, it would add an instruction where `x + c` is needed
/// anyway (a loop counter's next value), since `[base, index, lsl #k]` addressing is free.
fn has_neighbour(f: &Function, base: Value, x: Value, stride: u32, sum: Inst) -> bool {
    let own = match *f.kind(sum) {
        InstKind::Binary { args: [_, c], .. } => c,
        _ => Value::Int(0),
    };
    let is_address = |v: Value| {
        f.uses(v).iter().any(|u| {
            u.index == 1
                && matches!(*f.kind(u.inst), InstKind::Gep { args: [b, _], stride: s } if b == base && s == stride)
        })
    };
    is_address(x)
        || f.uses(x).iter().any(|u| {
            u.inst != sum
                && matches!(
                    *f.kind(u.inst),
                    InstKind::Binary {
                        op: BinaryOp::Add,
                        args: [_, Value::Int(d)],
                    } if Value::Int(d) != own
                )
                && is_address(Value::Inst(u.inst))
        })
}
