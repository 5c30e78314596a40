//! constant-loads (constant arrays, for global arrays): a load at a known
//! offset inside a global that nothing in the module writes (a `const` array, or one only
//! ever read) is the initialiser's element there. `gvn` does this for global scalars; here
//! array elements fold too (`seed[2]`, a divisor read from a table, becomes a constant and
//! its division a multiply by the reciprocal).
//!
//! Needs: the module facts (which globals are written). Preserves: behaviour and every
//! function's CFG.

use crate::analysis::alias::{locate, Object};
use crate::analysis::Preserved;
use crate::ir::{InstKind, Module, Type, Value};
use crate::passes::ModuleAnalyses;

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let facts = am.facts(m);
    let mut changed = false;
    for id in m.function_ids().collect::<Vec<_>>() {
        let f = m.function(id);
        let folds: Vec<_> = f
            .all_insts()
            .filter_map(|i| {
                let InstKind::Load { args: [addr] } = *f.kind(i) else {
                    return None;
                };
                let loc = locate(f, addr);
                let (Object::Global(g), Some(offset)) = (loc.object, loc.offset) else {
                    return None;
                };
                let global = m.global(g);
                let bytes = i64::from(global.bytes());
                let inside = offset >= 0 && offset % 4 == 0 && offset + 4 <= bytes;
                if !inside || !facts.is_constant_global(g) {
                    return None;
                }
                let bits = global.initial((offset / 4) as u32);
                let value = match f.inst(i).ty {
                    Type::I32 => Value::Int(bits as i32),
                    Type::F32 => Value::Float(bits),
                    _ => return None,
                };
                Some((i, value))
            })
            .collect();
        let f = m.function_mut(id);
        for (i, value) in folds {
            f.replace_all_uses(Value::Inst(i), value);
            f.remove_inst(i);
            changed = true;
        }
    }
    if changed {
        Preserved::Cfg
    } else {
        Preserved::All
    }
}
