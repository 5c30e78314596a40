//! Alias analysis inside one function: which memory an address may touch, whether two
//! accesses may overlap, and what a call may read or write.
//!
//! An address is traced through `gep` bases to its object: a global, a parameter, an
//! `alloca` of the function, or unknown (a phi, a select, a load...). When every index on
//! the way is a constant, the byte offset from the object's start is known too. Every
//! access is of one 4-byte scalar (SysY has `int` and `float` only).
//!
//! Distinct objects never overlap, with two exceptions: a parameter may point into a global
//! or into what another parameter points to (the caller passed them), and an unknown address
//! may be anywhere. `may_alias_in` narrows the first by what the function's calls pass: a
//! parameter every call points into some globals may overlap only those. A parameter never
//! points to this function's own `alloca`s: those are created by this call, after the
//! arguments were chosen. Two accesses to one object overlap unless both offsets are known
//! and differ by at least 4.
//!
//! A call touches memory as its callee's summary says (module facts): through each pointer
//! argument the callee reads or writes, and any global or parameter memory when it reads or
//! writes globals. Runtime functions touch only what their pointer arguments point to.
//!
//! Needs: the module facts, for calls. Computed on demand, not cached.

use super::module_facts::{pointer_use, Access, ModuleFacts, PointerUse};
use crate::ir::{BinaryOp, Block, Callee, FuncId, Function, GlobalId, Inst, InstKind, Type, Value};

/// What an address points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    Global(GlobalId),
    Param(u32),
    Alloca(Inst),
    Unknown,
}

/// Where an access goes: its object and, when known, the byte offset from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub object: Object,
    pub offset: Option<i64>,
}

/// The location `addr` points to. Follows at most a bounded number of `gep`s (a cycle of
/// them exists only in unreachable code).
pub fn locate(f: &Function, addr: Value) -> Location {
    let mut offset = Some(0i64);
    let mut cur = addr;
    for _ in 0..64 {
        let object = match cur {
            Value::Global(g) => Object::Global(g),
            Value::Param(p) => Object::Param(p),
            Value::Inst(i) => match f.kind(i) {
                InstKind::Alloca { .. } => Object::Alloca(i),
                InstKind::Gep { args, stride } => {
                    offset = offset.and_then(|o| {
                        args[1]
                            .as_int()
                            .map(|k| o + i64::from(k) * i64::from(*stride))
                    });
                    cur = args[0];
                    continue;
                }
                _ => Object::Unknown,
            },
            _ => Object::Unknown,
        };
        return Location { object, offset };
    }
    Location {
        object: Object::Unknown,
        offset: None,
    }
}

/// Where a vector load or store at `addr` goes, as far as scalar accesses may meet it: its
/// object, at no known offset (it spans four elements).
pub fn vector_location(f: &Function, addr: Value) -> Location {
    Location {
        object: locate(f, addr).object,
        offset: None,
    }
}

/// Whether memory of object `a` may be memory of object `b`.
pub fn objects_may_alias(a: Object, b: Object) -> bool {
    use Object::*;
    match (a, b) {
        (Unknown, _) | (_, Unknown) => true,
        (Alloca(x), Alloca(y)) => x == y,
        (Alloca(_), _) | (_, Alloca(_)) => false,
        (Global(g), Global(h)) => g == h,
        (Param(_), _) | (_, Param(_)) => true,
    }
}

/// How far, in bytes, a speculative load may read from an address a program reads in a
/// global or local array (`in_own_array`): memory there is mapped, since the array lies
/// among the program's other globals or in the stack frame.
pub const MAPPED_NEAR: u32 = 64;

/// Whether `p`, through `gep`s, points into a global or a local array, where reading up to
/// `MAPPED_NEAR` bytes away from an address the program reads cannot fault.
pub fn in_own_array(f: &Function, p: Value) -> bool {
    own_array(f, p).is_some()
}

/// The global or `alloca` that `p` points into through `gep`s, if it is one of those.
pub fn own_array(f: &Function, mut p: Value) -> Option<Value> {
    loop {
        match p {
            Value::Global(_) => return Some(p),
            Value::Inst(i) => match *f.kind(i) {
                InstKind::Alloca { .. } => return Some(p),
                InstKind::Gep {
                    args: [base, _], ..
                } => p = base,
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// Whether 4-byte accesses at `a` and `b` may overlap.
pub fn may_alias(a: Location, b: Location) -> bool {
    if !objects_may_alias(a.object, b.object) {
        return false;
    }
    match (a.object == b.object, a.offset, b.offset) {
        (true, Some(x), Some(y)) => (x - y).abs() < 4,
        _ => true,
    }
}

/// Whether 4-byte accesses at `a` and `b` are certainly apart: their objects never overlap
/// (`may_alias`), or both addresses step from one common address by constants at least 4
/// bytes apart. The common address is what remains after constant-index `gep`s, or, for a
/// `gep` by `x + k`, the same `gep` by `x`: `a[j]` and `a[j + 1]` are apart wherever `a`
/// and `j` point, and so are `p` and `p + 4` for a pointer phi `p`.
pub fn are_apart(f: &Function, a: Value, b: Value) -> bool {
    if !may_alias(locate(f, a), locate(f, b)) {
        return true;
    }
    match (stepped(f, a), stepped(f, b)) {
        // Addresses wrap at 2^32: apart when the distance modulo 2^32 leaves 4 bytes
        // either way.
        (Some((x, o)), Some((y, p))) => {
            x == y && (4..=(1i64 << 32) - 4).contains(&(o - p).rem_euclid(1 << 32))
        }
        _ => false,
    }
}

/// What `addr` holds where `block` reaches `until` (its end for `None`): the value the block
/// last loaded from `addr` or stored there, when no write after that may touch `addr` (a
/// store `are_apart` from it is none). `None` when the block leaves that unknown.
pub fn value_held(f: &Function, block: Block, addr: Value, until: Option<Inst>) -> Option<Value> {
    let mut held = None;
    for i in f.block_insts(block).take_while(|&i| Some(i) != until) {
        match *f.kind(i) {
            InstKind::Load { args: [a] } if a == addr => held = Some(Value::Inst(i)),
            InstKind::Store { args: [v, a] } if a == addr => held = Some(v),
            InstKind::Store { args: [_, a] } if are_apart(f, a, addr) => {}
            ref kind if kind.opcode().writes_memory() => held = None,
            _ => {}
        }
    }
    held
}

/// What `stepped` reduces an address to: an address value, or a `gep` of `base` by `index`
/// with `stride` that stands for itself with `index` plus a constant.
#[derive(Clone, Copy, PartialEq)]
enum Stepped {
    Value(Value),
    Gep(Value, Value, u32),
}

/// `addr` as a common address and a constant byte offset from it (see `are_apart`).
fn stepped(f: &Function, addr: Value) -> Option<(Stepped, i64)> {
    let mut offset = 0i64;
    let mut cur = addr;
    for _ in 0..64 {
        let Some(&InstKind::Gep {
            args: [base, index],
            stride,
        }) = cur.as_inst().map(|i| f.kind(i))
        else {
            return Some((Stepped::Value(cur), offset));
        };
        let stride = i64::from(stride);
        if let Some(k) = index.as_int() {
            offset += i64::from(k) * stride;
            cur = base;
            continue;
        }
        let added = index.as_inst().and_then(|i| match *f.kind(i) {
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [x, Value::Int(k)],
            } => Some((x, k)),
            _ => None,
        });
        let (x, k) = added.unwrap_or((index, 0));
        let gep = Stepped::Gep(base, x, stride as u32);
        return Some((gep, offset + i64::from(k) * stride));
    }
    None
}

/// `may_alias` inside function `func`, knowing what its calls pass: a parameter that every
/// call points into some globals (`ModuleFacts::param_globals`) overlaps no other global,
/// nor a parameter whose calls point only into other globals, nor one that every call
/// points into another global than it (`ModuleFacts::disjoint_params`).
pub fn may_alias_in(facts: &ModuleFacts, func: FuncId, a: Location, b: Location) -> bool {
    if !may_alias(a, b) {
        return false;
    }
    let globals = |o: Object| match o {
        Object::Param(p) => facts.param_globals[func.index()]
            .get(p as usize)
            .and_then(|t| t.as_deref()),
        _ => None,
    };
    match (a.object, b.object) {
        (Object::Param(_), Object::Global(g)) => globals(a.object).is_none_or(|s| s.contains(&g)),
        (Object::Global(g), Object::Param(_)) => globals(b.object).is_none_or(|s| s.contains(&g)),
        (Object::Param(p), Object::Param(q)) => {
            let pair = (p.min(q), p.max(q));
            if facts.disjoint_params[func.index()].contains(&pair) {
                return false;
            }
            match (globals(a.object), globals(b.object)) {
                (Some(s), Some(t)) => s.iter().any(|g| t.contains(g)),
                _ => true,
            }
        }
        _ => true,
    }
}

/// Whether a 4-byte load from `loc` is safe wherever `loc`'s object exists: the object is a
/// global or an `alloca` and the offset lies inside it.
pub fn is_in_bounds(f: &Function, facts: &ModuleFacts, loc: Location) -> bool {
    let Some(bytes) = object_bytes(f, facts, loc.object) else {
        return false;
    };
    loc.offset.is_some_and(|o| o >= 0 && o + 4 <= bytes)
}

/// The size in bytes of a global or an `alloca`; `None` for other objects.
pub fn object_bytes(f: &Function, facts: &ModuleFacts, object: Object) -> Option<i64> {
    match object {
        Object::Global(g) => Some(i64::from(facts.global_bytes[g.index()])),
        Object::Alloca(i) => match f.kind(i) {
            InstKind::Alloca { elem, count } => Some(i64::from(elem.bytes()) * i64::from(*count)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `call` may write memory at `loc`.
pub fn call_may_write(f: &Function, facts: &ModuleFacts, call: Inst, loc: Location) -> bool {
    call_may_access(f, facts, call, loc, true)
}

/// Whether `call` may read memory at `loc`.
pub fn call_may_read(f: &Function, facts: &ModuleFacts, call: Inst, loc: Location) -> bool {
    call_may_access(f, facts, call, loc, false)
}

fn call_may_access(
    f: &Function,
    facts: &ModuleFacts,
    call: Inst,
    loc: Location,
    write: bool,
) -> bool {
    let kind = f.kind(call);
    let InstKind::Call { callee, args } = kind else {
        return false;
    };
    let through = |k: usize, v: Value| {
        f.value_type(v) == Type::Ptr && objects_may_alias(locate(f, v).object, loc.object) && {
            match callee {
                Callee::Function(g) => {
                    let s = facts.summary(*g);
                    let touched = if write {
                        &s.writes_param
                    } else {
                        &s.reads_param
                    };
                    touched.get(k).copied().unwrap_or(true)
                }
                _ => match pointer_use(kind, k) {
                    PointerUse::Access(Access::Read) => !write,
                    PointerUse::Access(Access::Write) => write,
                    _ => true,
                },
            }
        }
    };
    if args.iter().enumerate().any(|(k, &v)| through(k, v)) {
        return true;
    }
    match callee {
        Callee::Function(g) => {
            let s = facts.summary(*g);
            let globals = if write {
                s.writes_globals
            } else {
                s.reads_globals
            };
            globals && !matches!(loc.object, Object::Alloca(_))
        }
        _ => false,
    }
}
