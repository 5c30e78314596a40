//! The pressure a loop puts on the core registers: the most integer values (not constants,
//! not truth values, which the back end keeps in the flags) live at one point of its blocks,
//! by liveness over the loop alone. A value defined before the loop and used in it lives
//! all through it (round the back edge); a value of the loop used after it lives to the
//! exits that lead there. Passes that would add values carried round the loop ask it first:
//! past the registers the back end has, each one added is spilled and reloaded every round.

use crate::analysis::LoopInfo;
use crate::fast_hash::FastHashSet;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};

/// The core registers the allocator colours with (r0-r12 and lr).
pub const CORE_REGISTERS: usize = 14;

/// The most integer values live at once in loop `k`'s blocks.
pub fn peak(f: &Function, loops: &LoopInfo, k: usize) -> usize {
    let blocks = &loops.loops[k].blocks;
    let mut position: Vec<Option<usize>> = vec![None; f.block_capacity()];
    for (j, &b) in blocks.iter().enumerate() {
        position[b.index()] = Some(j);
    }
    let index = |b: Block| position[b.index()];
    let in_loop = |b: Block| index(b).is_some();
    let counts = |v: Value| match v {
        Value::Inst(i) => !matches!(f.inst(i).ty, Type::F32 | Type::I1 | Type::Void),
        Value::Param(_) | Value::Global(_) => true,
        _ => false,
    };
    // Values of the loop read after it, live out of every block that leaves it.
    let mut leaving: FastHashSet<Value> = FastHashSet::default();
    for &b in blocks {
        for i in f.block_insts(b) {
            let v = Value::Inst(i);
            if counts(v)
                && f.uses(v)
                    .iter()
                    .any(|u| f.inst_block(u.inst).is_some_and(|ub| !in_loop(ub)))
            {
                leaving.insert(v);
            }
        }
    }
    let mut live_in: Vec<FastHashSet<Value>> = vec![FastHashSet::default(); blocks.len()];
    let live_out = |live_in: &[FastHashSet<Value>], b: Block| {
        let mut out: FastHashSet<Value> = FastHashSet::default();
        for &s in f.successors(b) {
            match index(s) {
                Some(j) => {
                    out.extend(live_in[j].iter().copied());
                    for p in f.phis(s) {
                        out.extend(f.phi_incoming(p, b).filter(|&v| counts(v)));
                    }
                }
                None => out.extend(leaving.iter().copied()),
            }
        }
        out
    };
    // The backward walk over block `b` from `out`: the live set at its start and its peak.
    let walk = |b: Block, mut live: FastHashSet<Value>| {
        let mut most = live.len();
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for &i in insts.iter().rev() {
            live.remove(&Value::Inst(i));
            if !matches!(f.kind(i), InstKind::Phi { .. }) {
                live.extend(f.kind(i).operands().iter().copied().filter(|&v| counts(v)));
            }
            most = most.max(live.len());
        }
        (live, most)
    };
    let mut changed = true;
    while changed {
        changed = false;
        for (j, &b) in blocks.iter().enumerate().rev() {
            let (start, _) = walk(b, live_out(&live_in, b));
            if start != live_in[j] {
                live_in[j] = start;
                changed = true;
            }
        }
    }
    blocks
        .iter()
        .map(|&b| walk(b, live_out(&live_in, b)).1)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::peak;
    use crate::analysis::{Cfg, DomTree, LoopInfo};
    use crate::ir::parser::parse_module;

    /// The peak of the only loop of a function summing the first `extra` of its parameters
    /// into an accumulator every round.
    fn summing_peak(extra: usize) -> usize {
        let params: Vec<String> = (0..extra).map(|k| format!("%p{k}: i32")).collect();
        let mut body = String::new();
        let mut acc = "%s".to_string();
        for k in 0..extra {
            body += &format!("  %s{k} = add {acc}, %p{k}\n");
            acc = format!("%s{k}");
        }
        let text = format!(
            "func @f({}) -> i32 {{
bb0:
  br bb1
bb1:
  %i = phi i32 [0, bb0], [%i1, bb1]
  %s = phi i32 [0, bb0], [{acc}, bb1]
{body}  %i1 = add %i, 1
  %t = icmp slt %i1, 10
  condbr %t, bb1, bb2
bb2:
  ret {acc}
}}
",
            params.join(", ")
        );
        let m = parse_module(&text).expect("the test IR parses");
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let dom = DomTree::new(&cfg);
        let loops = LoopInfo::new(&cfg, &dom);
        peak(f, &loops, 0)
    }

    #[test]
    fn values_from_before_a_loop_live_all_through_it() {
        // The counter, the sum and every parameter the loop reads are live at once; the
        // comparison's truth value, kept in the flags, is not counted.
        assert_eq!(summing_peak(3), 5);
        assert_eq!(summing_peak(12), 14);
    }
}
