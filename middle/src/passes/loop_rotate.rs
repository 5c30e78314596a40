//! loop-rotate: a loop tested at the top (`while`) becomes a loop tested at the bottom behind
//! a guard, so an iteration takes one branch (the latch's, back to the body) instead of two
//! (the header's into the body and the latch's back to the header).
//!
//! ```text
//!   P: ...; br H                          P: ...; H's code on P's values; condbr c', B, E
//!   H: phis; code; condbr c, B, E    =>   B: a phi for each value of H: from P, from L
//!   B: ...                                ...
//!   L: ...; br H                          L: ...; H's code on L's values; condbr c'', B, E
//!   E: ...                                E: a phi for each value of H used after the loop
//! ```
//!
//! H's code runs once on each path where H ran: in P for the first test, in L for each later
//! one. Its values are then the copy's in P or L, and in the body a phi of the two in B; at
//! E, reached from P or L, a phi of the two as well. H goes. An instruction that reads no
//! memory and computes the same from the same operands in both places (an address fixed
//! for the loop, `gep @w, i`) is not copied into L: P's copy serves the whole loop.
//!
//! A loop is rotated when it has a preheader P, one latch L that ends in `br H`, H leaves
//! the loop for one exit E, H's successor in the loop (B) has H as its only predecessor,
//! and H's code is at most `MAX_HEADER` instructions, none storing or calling (loads may be
//! copied: each copy runs where H ran, on the same memory). A value of H used after the loop
//! needs E to have H as its only predecessor; E's phis may take values of H from H in any
//! case. Loops are visited innermost first, all on the analyses taken at the start: a loop
//! is left alone when a rotation already changed the terminator of its P or L, the
//! predecessors of its H, B or E, or removed one of its blocks.
//!
//! Other blocks of the loop may leave it too (a search: `while (p) { if (key[p] == x)
//! break; p = next[p]; }`). B dominates them and their exits' own paths, where a value of H
//! is B's phi; E's, where it is E's phi. A use that neither dominates gives up. Such a loop
//! is rotated only while the dominator tree taken at the start is still exact, before any
//! other rotation.
//!
//! Needs: the CFG, the dominator tree and the loop forest. Preserves: behaviour (the CFG
//! changes).

use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::value_map::{mapped, mapped_kind, ValueMap};

/// The most instructions, besides phis and the branch, a header may have to be copied.
const MAX_HEADER: usize = 8;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let loops = cx.analyses.loops(f);
    let dom = cx.analyses.dom(f);
    let n = f.block_capacity();
    let (mut term_changed, mut preds_changed, mut removed) =
        (vec![false; n], vec![false; n], vec![false; n]);
    let mut changed = false;
    for k in (0..loops.loops.len()).rev() {
        let Some(s) = shape(f, &cfg, &loops, k) else {
            continue;
        };
        let stale = [s.p, s.l].iter().any(|b| term_changed[b.index()])
            || [s.h, s.b, s.e].iter().any(|b| preds_changed[b.index()])
            || [s.p, s.h, s.l, s.b, s.e].iter().any(|b| removed[b.index()]);
        // Uses after a loop of several exits are placed with the dominator tree.
        let dom = (!changed).then_some(&*dom);
        if stale || (!s.single_exit && dom.is_none()) || !rotate(f, &loops, dom, k, &s) {
            continue;
        }
        term_changed[s.p.index()] = true;
        term_changed[s.l.index()] = true;
        preds_changed[s.b.index()] = true;
        preds_changed[s.e.index()] = true;
        removed[s.h.index()] = true;
        changed = true;
    }
    Preserved::nothing_if(changed)
}

/// The blocks of a rotatable loop: preheader, header, latch, the header's successor in the
/// loop and its exit; whether H branches to E when its condition holds; and whether E's
/// only predecessor is H.
struct Shape {
    p: Block,
    h: Block,
    l: Block,
    b: Block,
    e: Block,
    exit_when_true: bool,
    e_only_from_h: bool,
    /// H is the loop's only exiting block and E its only exit.
    single_exit: bool,
}

fn shape(f: &Function, cfg: &Cfg, loops: &LoopInfo, k: usize) -> Option<Shape> {
    let lp = &loops.loops[k];
    let (h, p) = (lp.header, lp.preheader?);
    let &[l] = &lp.latches[..] else {
        return None;
    };
    if l == h || !matches!(*f.kind(f.terminator(l)?), InstKind::Br { .. }) {
        return None;
    }
    let InstKind::CondBr {
        targets: [yes, no], ..
    } = *f.kind(f.terminator(h)?)
    else {
        return None;
    };
    let (b, e, exit_when_true) = match (loops.contains(k, yes), loops.contains(k, no)) {
        (true, false) => (yes, no, false),
        (false, true) => (no, yes, true),
        _ => return None,
    };
    if b == h || cfg.preds(b) != [h] {
        return None;
    }
    let mut code = 0;
    for i in f.block_insts(h) {
        let kind = f.kind(i);
        if kind.is_phi() || kind.is_terminator() {
            continue;
        }
        if kind.has_side_effects() || matches!(kind, InstKind::Alloca { .. }) {
            return None;
        }
        code += 1;
    }
    (code <= MAX_HEADER).then_some(Shape {
        p,
        h,
        l,
        b,
        e,
        exit_when_true,
        e_only_from_h: cfg.preds(e) == [h],
        single_exit: lp.exiting.len() == 1 && lp.exits.len() == 1,
    })
}

/// Where a value of H is used, by what replaces it there.
enum Site {
    /// In the loop: the phi in B.
    Body,
    /// A phi of B or E taking it from H: the copies' values from P and L.
    FromHeader,
    /// After the loop, where E dominates: a phi in E.
    AfterLoop,
}

/// Rotates loop `k`; `dom` is exact when given, and needed when the loop has other exits.
fn rotate(f: &mut Function, loops: &LoopInfo, dom: Option<&DomTree>, k: usize, s: &Shape) -> bool {
    let values: Vec<Inst> = f
        .block_insts(s.h)
        .filter(|&i| !f.kind(i).is_terminator())
        .collect();
    // Every use of a value of H outside H, classified; give up if one lies after the loop
    // where no phi in E can reach it.
    let mut sites: Vec<(Inst, Inst, usize, Site)> = Vec::new();
    for &v in &values {
        for u in f.uses(Value::Inst(v)) {
            let user_block = f.inst_block(u.inst).expect("in a block");
            let from = match f.kind(u.inst) {
                InstKind::Phi { blocks, .. } => blocks[u.index as usize],
                _ => user_block,
            };
            let site = if user_block == s.h {
                continue;
            } else if from == s.h {
                Site::FromHeader
            } else if loops.contains(k, from) {
                Site::Body
            } else if s.single_exit {
                if !s.e_only_from_h {
                    return false;
                }
                Site::AfterLoop
            } else {
                let Some(dom) = dom else {
                    return false;
                };
                if dom.dominates(s.b, from) {
                    Site::Body
                } else if s.e_only_from_h && dom.dominates(s.e, from) {
                    Site::AfterLoop
                } else {
                    return false;
                }
            };
            sites.push((v, u.inst, u.index as usize, site));
        }
    }
    let term_p = f.terminator(s.p).expect("a preheader ends in br");
    let term_l = f.terminator(s.l).expect("a latch ends in br");
    // The first test, in P.
    let mut at_p = ValueMap::default();
    for &v in &values {
        let value = match f.kind(v) {
            InstKind::Phi { .. } => f.phi_incoming(v, s.p).expect("from the preheader"),
            _ => copy_before(f, v, term_p, &at_p),
        };
        at_p.insert(v, value);
    }
    // Phis in B for the values the body uses, filled once the copy in L exists.
    let mut at_b = ValueMap::default();
    for &v in &values {
        let ty = f.inst(v).ty;
        if ty != Type::Void {
            let phi = f.prepend_inst(
                s.b,
                InstKind::Phi {
                    args: Vec::new(),
                    blocks: Vec::new(),
                },
                ty,
            );
            at_b.insert(v, Value::Inst(phi));
        }
    }
    // The later tests, in L: H's phis take their values from L as the body left them.
    let mut at_l = ValueMap::default();
    for &v in &values {
        let value = match f.kind(v) {
            InstKind::Phi { .. } => {
                let x = f.phi_incoming(v, s.l).expect("from the latch");
                mapped(x, &at_b)
            }
            _ if same_in_both(f, v, &at_p, &at_l) => at_p[&v],
            _ => copy_before(f, v, term_l, &at_l),
        };
        at_l.insert(v, value);
    }
    for v in &values {
        if let Some(phi) = at_b.get(v).and_then(|phi| phi.as_inst()) {
            f.add_phi_incoming(phi, at_p[v], s.p);
            f.add_phi_incoming(phi, at_l[v], s.l);
        }
    }
    // Phis in E for the values used after the loop.
    let mut at_e = ValueMap::default();
    for (v, _, _, site) in &sites {
        if matches!(site, Site::AfterLoop) && !at_e.contains_key(v) {
            let phi = f.prepend_inst(
                s.e,
                InstKind::Phi {
                    args: vec![at_p[v], at_l[v]],
                    blocks: vec![s.p, s.l],
                },
                f.inst(*v).ty,
            );
            at_e.insert(*v, Value::Inst(phi));
        }
    }
    for (v, user, index, site) in sites {
        match site {
            Site::Body => f.set_operand(user, index, at_b[&v]),
            Site::AfterLoop => f.set_operand(user, index, at_e[&v]),
            // Rewritten with the phis of B and E below.
            Site::FromHeader => {}
        }
    }
    for block in [s.b, s.e] {
        let phis: Vec<Inst> = f.phis(block).collect();
        for phi in phis {
            if let Some(x) = f.phi_incoming(phi, s.h) {
                replace_incoming(
                    f,
                    phi,
                    s.h,
                    &[(mapped(x, &at_p), s.p), (mapped(x, &at_l), s.l)],
                );
            }
        }
    }
    let cond = match *f.kind(f.terminator(s.h).expect("a condbr")) {
        InstKind::CondBr { args: [c], .. } => c,
        _ => unreachable!("the header ends in condbr"),
    };
    let targets = if s.exit_when_true {
        [s.e, s.b]
    } else {
        [s.b, s.e]
    };
    for (term, at) in [(term_p, &at_p), (term_l, &at_l)] {
        let kind = InstKind::CondBr {
            args: [mapped(cond, at)],
            targets,
        };
        f.replace_kind(term, kind, Type::Void);
    }
    // H's values are used only in H now.
    for &v in &values {
        if f.inst(v).ty != Type::Void {
            f.replace_all_uses(Value::Inst(v), Value::Undef(f.inst(v).ty));
        }
    }
    f.remove_block(s.h);
    // Phis of B nothing uses (values of H only H used), and those of a value the same in
    // P and L: the value itself.
    for v in &values {
        if let Some(phi) = at_b.get(v).and_then(|phi| phi.as_inst()) {
            if at_p[v] == at_l[v] {
                f.replace_all_uses(Value::Inst(phi), at_p[v]);
            }
            if f.uses(Value::Inst(phi)).is_empty() {
                f.remove_inst(phi);
            }
        }
    }
    true
}

/// Whether `v`, an instruction of H that neither reads memory nor has effects, computes
/// the same in P and in L: its operands there are the same values. Then L takes P's copy,
/// and the body sees it where it saw a phi of two equal values (an address fixed for the
/// loop: `licm` and alias analysis see through it).
fn same_in_both(f: &Function, v: Inst, at_p: &ValueMap, at_l: &ValueMap) -> bool {
    let op = f.kind(v).opcode();
    !op.reads_memory()
        && !op.has_side_effects()
        && !op.may_fault()
        && mapped_kind(f, v, at_p) == mapped_kind(f, v, at_l)
}

/// A copy of instruction `v` of H before `before`, its operands from H replaced through
/// `at`.
fn copy_before(f: &mut Function, v: Inst, before: Inst, at: &ValueMap) -> Value {
    let kind = mapped_kind(f, v, at);
    let ty = f.inst(v).ty;
    Value::Inst(f.insert_inst_before(before, kind, ty))
}

/// Replaces the pair of `phi` from `from` by `pairs`.
fn replace_incoming(f: &mut Function, phi: Inst, from: Block, pairs: &[(Value, Block)]) {
    let InstKind::Phi { args, blocks } = f.kind(phi) else {
        unreachable!("a phi");
    };
    let mut kept: Vec<(Value, Block)> = args
        .iter()
        .zip(blocks)
        .filter(|&(_, &b)| b != from)
        .map(|(&v, &b)| (v, b))
        .collect();
    kept.extend_from_slice(pairs);
    let (args, blocks) = kept.into_iter().unzip();
    let ty = f.inst(phi).ty;
    f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
}
