//! loop-split (index-set splitting): a loop that tests its counter against a value fixed
//! for the loop (`if (i < 20)`, `if (j > i)` in a loop over `j`) runs as two loops, one
//! over the counter values where the test holds and one where it fails, each with the test
//! decided. SHA's rounds (`i < 20`, `i < 40`, `i < 60` in a loop to 80) become four loops
//! with their constants folded; a transpose's `if (i < j) continue;` leaves a second loop
//! that does nothing, which `loop-deletion` removes.
//!
//! ```text
//!   P: br H                      P:  split = s or s + 1; b1 = min(n, split)
//!   H: iv = phi [a, P], [iv', L]     condbr a < b1, P1, M
//!      ... icmp iv < s ...       P1: br H1
//!   L: iv' = iv + 1              H1..L1: a copy of the loop, the test decided,
//!      condbr iv' < n, H, E              leaving when iv' < b1 fails, to X
//!   E: ...                       X:  br M
//!                                M:  phis: where the first loop left each header value
//!                                    (its start when that loop did not run), and each
//!                                    value used after the loop; condbr iv_m < n, P2, E
//!                                P2: br H
//!                                H..L: the loop, from M's values, the test decided
//!                                E:  phis take M's values when the second loop did not run
//! ```
//!
//! The loop has a preheader, one latch, which is its only way out (to a block of its own),
//! and a counter: a header phi stepped by 1 in the latch, which leaves when the stepped
//! value is no longer below an invariant `n`. It runs at least once, whether or not its
//! start lies below `n` (a `do`-`while` shape has no guard), and its counter never wraps
//! (the test passed before each step). The test is a signed comparison of the counter
//! (not the stepped value) with a value `s` defined outside the loop; `iv <= s` and
//! `iv > s` split at `s + 1`, which stays `s` when that would wrap (all values pass then).
//! The first loop covers the counter values below `split`, the second the rest: the first
//! round decides which part starts, and the second part starts after the first only if
//! the loop goes on. Unless a guard decided `a < n` before the loop (`entry_order`), P's
//! test is `a < split` and M's `phi [true, P], [iv1' < n, X]` instead: the second part
//! takes the first round whenever the first part did not, whatever `n`. Each part's exit
//! test is a comparison of its own: the original may
//! serve other users too (value numbering makes `i + 1 < n` one value with an inner
//! loop's guard `j = i + 1; j < n`), and they must keep seeing `n`.
//!
//! A loop without such a test splits where a product of its counter starts to wrap, when
//! a division undoes the product (`(i * 60) / 60`, a sum of `i` sixty times divided by
//! sixty): below `i32::MAX / 60 + 1` the product is exact, so the first loop takes `i` for
//! the quotient; the second loop, for larger counters, keeps the wrapping arithmetic.
//! The counter must start at a constant from 0 up, and a constant bound must lie past the
//! split point (below it, the ranges alone fold the quotient).
//!
//! A loop of at most `MAX_SIZE` instructions is split, at most `MAX_SPLITS` times per
//! function and run; a loop split at a constant point only when it lies between constant
//! start and bound, if those are constants.
//!
//! Needs: the CFG and the loop forest. Preserves: behaviour (the CFG changes).

use crate::analysis::entry_order::less_on_entry;
use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::value_map::{copied_block, copy_blocks, copy_insts, mapped};

/// The most instructions a loop may have to be copied.
const MAX_SIZE: usize = 300;
/// The most loops one function has split in one run.
const MAX_SPLITS: usize = 6;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut splits = 0;
    while splits < MAX_SPLITS {
        let cfg = cx.analyses.cfg(f);
        let loops = cx.analyses.loops(f);
        let dom = cx.analyses.dom(f);
        let Some(plan) = (0..loops.loops.len()).find_map(|k| find(f, (&cfg, &dom), &loops, k))
        else {
            break;
        };
        split(f, &loops, &plan);
        splits += 1;
        cx.analyses.invalidate(Preserved::Nothing);
    }
    Preserved::nothing_if(splits > 0)
}

/// One loop to split and how.
struct Plan {
    k: usize,
    preheader: Block,
    latch: Block,
    exit: Block,
    /// The counter (a header phi) and its start.
    iv: Inst,
    start: Value,
    /// Whether the loop is entered with its counter below `bound` (a guard decided it).
    guarded: bool,
    /// The latch's exit test `next < bound`, with `next = iv + 1`.
    test: Inst,
    next: Inst,
    bound: Value,
    /// The split point, before the `+ 1` if any.
    at: Value,
    plus_one: bool,
    reason: Reason,
}

/// What each part of a split loop knows.
enum Reason {
    /// A comparison of the counter, decided in each part: what it gives below the split
    /// point.
    Test(Inst, bool),
    /// Below the split point, products of the counter do not wrap: each of these quotients
    /// `(iv * m) / c` is the counter times `m / c` in the first part.
    Wrap(Vec<(Inst, i32)>),
}

/// How loop `k` splits, if it qualifies.
fn find(f: &Function, (cfg, dom): (&Cfg, &DomTree), loops: &LoopInfo, k: usize) -> Option<Plan> {
    let lp = &loops.loops[k];
    let preheader = lp.preheader?;
    let [latch] = lp.latches[..] else {
        return None;
    };
    let ([exit], [exiting]) = (&lp.exits[..], &lp.exiting[..]) else {
        return None;
    };
    if *exiting != latch || cfg.preds(*exit) != [latch] {
        return None;
    }
    // Counted up to the limit only: around 10,000 nested loops, each loop's blocks are
    // the whole nest.
    let blocks = loops.blocks_of(k);
    let mut size = 0;
    for &b in blocks {
        size += f.block_insts(b).count();
        if size > MAX_SIZE {
            return None;
        }
    }
    let inside = |v: Value| {
        v.as_inst()
            .and_then(|i| f.inst_block(i))
            .is_some_and(|b| loops.contains(k, b))
    };
    // The latch: condbr (next < bound), header, exit.
    let test_inst = f.terminator(latch)?;
    let InstKind::CondBr {
        args: [Value::Inst(test)],
        targets: [to_header, to_exit],
    } = *f.kind(test_inst)
    else {
        return None;
    };
    if to_header != lp.header || to_exit != *exit {
        return None;
    }
    let InstKind::Icmp {
        pred: IntPred::Slt,
        args: [Value::Inst(next), bound],
    } = *f.kind(test)
    else {
        return None;
    };
    if inside(bound) {
        return None;
    }
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [Value::Inst(iv), Value::Int(1)],
    } = *f.kind(next)
    else {
        return None;
    };
    if f.inst_block(iv) != Some(lp.header) {
        return None;
    }
    let InstKind::Phi { args, blocks: from } = f.kind(iv) else {
        return None;
    };
    let start = *args.get(from.iter().position(|&b| b == preheader)?)?;
    if args.get(from.iter().position(|&b| b == latch)?) != Some(&Value::Inst(next)) {
        return None;
    }
    let guarded = match (start, bound) {
        (Value::Int(a), Value::Int(n)) => a < n,
        _ => less_on_entry(f, cfg, dom, preheader, start, bound),
    };
    let plan = |at, plus_one, reason| Plan {
        k,
        guarded,
        preheader,
        latch,
        exit: *exit,
        iv,
        start,
        test,
        next,
        bound,
        at,
        plus_one,
        reason,
    };
    // A comparison of the counter with an invariant value, other than the exit test.
    for &b in blocks {
        for i in f.block_insts(b) {
            let InstKind::Icmp { pred, args: [x, y] } = *f.kind(i) else {
                continue;
            };
            if f.uses(Value::Inst(i)).is_empty() {
                continue;
            }
            let (pred, at) = if x == Value::Inst(iv) && !inside(y) {
                (pred, y)
            } else if y == Value::Inst(iv) && !inside(x) {
                (pred.swapped(), x)
            } else {
                continue;
            };
            // iv < at, iv <= at (iv < at + 1), iv > at (not iv < at + 1), iv >= at.
            let (plus_one, below) = match pred {
                IntPred::Slt => (false, true),
                IntPred::Sle => (true, true),
                IntPred::Sgt => (true, false),
                IntPred::Sge => (false, false),
                _ => continue,
            };
            if let (Value::Int(s), Value::Int(a), Value::Int(n)) = (at, start, bound) {
                let point = i64::from(s) + i64::from(plus_one);
                if point <= i64::from(a) || point >= i64::from(n) {
                    continue;
                }
            }
            return Some(plan(at, plus_one, Reason::Test(i, below)));
        }
    }
    let (point, quotients) = wrap_point(f, blocks, iv)?;
    let from_zero = matches!(start, Value::Int(a) if (0..point).contains(&a));
    if !from_zero || matches!(bound, Value::Int(n) if n <= point) {
        return None;
    }
    Some(plan(Value::Int(point), false, Reason::Wrap(quotients)))
}

/// The least counter value at which a product `iv * m` of the loop's counter stops fitting
/// in `i32`, over the products with `m > 1` that a division in the loop by a divisor `c`
/// of `m` undoes (`(i * 60) / 60` is `i` only while `i * 60` does not wrap), and those
/// quotients with their factors `m / c`.
fn wrap_point(f: &Function, blocks: &[Block], iv: Inst) -> Option<(i32, Vec<(Inst, i32)>)> {
    let mut quotients = Vec::new();
    let mut greatest = 1;
    for &b in blocks {
        for i in f.block_insts(b) {
            let InstKind::Binary {
                op: BinaryOp::Mul,
                args: [y, Value::Int(m)],
            } = *f.kind(i)
            else {
                continue;
            };
            if y != Value::Inst(iv) || m <= 1 {
                continue;
            }
            for u in f.uses(Value::Inst(i)) {
                if let InstKind::Binary {
                    op: BinaryOp::SDiv,
                    args: [x, Value::Int(c)],
                } = *f.kind(u.inst)
                {
                    let inside = f.inst_block(u.inst).is_some_and(|b| blocks.contains(&b));
                    if inside && x == Value::Inst(i) && c > 0 && m % c == 0 {
                        quotients.push((u.inst, m / c));
                        greatest = greatest.max(m);
                    }
                }
            }
        }
    }
    (greatest > 1).then(|| (i32::MAX / greatest + 1, quotients))
}

fn split(f: &mut Function, loops: &LoopInfo, plan: &Plan) {
    let k = plan.k;
    let header = loops.loops[k].header;
    let blocks: Vec<Block> = loops.blocks_of(k).to_vec();
    let in_loop = |f: &Function, i: Inst| f.inst_block(i).is_some_and(|b| blocks.contains(&b));

    // The split point and the first loop's bound, in the preheader.
    let p = plan.preheader;
    let jump = f.terminator(p).expect("a preheader ends in a jump");
    let before = |f: &mut Function, kind: InstKind, ty: Type| {
        Value::Inst(f.insert_inst_before(jump, kind, ty))
    };
    let point = if plan.plus_one {
        let stepped = before(
            f,
            InstKind::binary(BinaryOp::Add, plan.at, Value::Int(1)),
            Type::I32,
        );
        let top = before(
            f,
            InstKind::icmp(IntPred::Eq, plan.at, Value::Int(i32::MAX)),
            Type::I1,
        );
        let kind = InstKind::Select {
            args: [top, plan.at, stepped],
        };
        before(f, kind, Type::I32)
    } else {
        plan.at
    };
    let lower = before(f, InstKind::icmp(IntPred::Slt, plan.bound, point), Type::I1);
    let b1 = before(
        f,
        InstKind::Select {
            args: [lower, plan.bound, point],
        },
        Type::I32,
    );
    // The first round belongs to the first part exactly when it lies below the split
    // point. Entered with its start below `n`, that is `start < b1`, which tells later
    // passes that the first part's exit test passes on entry; otherwise the loop's first
    // round runs even when its start is not below `n`.
    let first_bound = if plan.guarded { b1 } else { point };
    let enter1 = before(
        f,
        InstKind::icmp(IntPred::Slt, plan.start, first_bound),
        Type::I1,
    );

    // The new blocks around the copy.
    let [p1, x, m, p2] = [(); 4].map(|_| f.create_block());
    f.insert_block_after(p1, p);
    let copy_of = copy_blocks(f, &blocks, p1);
    let mut last = copy_of.last().map_or(p1, |&(_, c)| c);
    for b in [x, m, p2] {
        f.insert_block_after(b, last);
        last = b;
    }
    let block_of = |b: Block| copied_block(&copy_of, b);
    f.remove_inst(jump);
    // The second part's header values join from P and from the first part: in M when M
    // tests whether the second part runs, in P2 when it runs whenever the first did not.
    let from_copy = if plan.guarded { x } else { m };
    let branch = InstKind::CondBr {
        args: [enter1],
        targets: [p1, if plan.guarded { m } else { p2 }],
    };
    f.append_inst(p, branch, Type::Void);
    f.append_inst(
        p1,
        InstKind::Br {
            targets: [block_of(header)],
        },
        Type::Void,
    );
    f.append_inst(x, InstKind::Br { targets: [m] }, Type::Void);
    let to_header = f.append_inst(p2, InstKind::Br { targets: [header] }, Type::Void);

    let map = copy_insts(f, &copy_of);
    // The copy's header comes from P1, and its latch leaves to X below b1.
    let copy_header = block_of(header);
    let phis: Vec<Inst> = f.phis(copy_header).collect();
    for phi in phis {
        f.replace_target(phi, p, p1);
    }
    // The copy's exit test is a comparison of its own: the copied `next < bound` may also
    // decide an `if` or an inner loop's guard in the body, which must keep seeing `bound`.
    let copy_latch_end = f
        .terminator(block_of(plan.latch))
        .expect("a latch ends in a branch");
    let copy_next = mapped(Value::Inst(plan.next), &map);
    let copy_test = f.insert_inst_before(
        copy_latch_end,
        InstKind::icmp(IntPred::Slt, copy_next, b1),
        Type::I1,
    );
    f.set_operand(copy_latch_end, 0, Value::Inst(copy_test));
    let old_test = mapped(Value::Inst(plan.test), &map)
        .as_inst()
        .expect("copied");
    if f.uses(Value::Inst(old_test)).is_empty() {
        f.remove_inst(old_test);
    }
    f.replace_target(copy_latch_end, plan.exit, x);

    // Where the first loop left each header value, or its start.
    let header_phis: Vec<Inst> = f.phis(header).collect();
    let mut iv_mid = None;
    for phi in header_phis {
        let init = f
            .phi_incoming(phi, p)
            .expect("a header phi takes a value from P");
        let carried = f
            .phi_incoming(phi, plan.latch)
            .expect("and one from the latch");
        let kind = InstKind::Phi {
            args: vec![init, mapped(carried, &map)],
            blocks: vec![p, from_copy],
        };
        let ty = f.inst(phi).ty;
        let joined = if plan.guarded {
            f.append_inst(m, kind, ty)
        } else {
            f.insert_inst_before(to_header, kind, ty)
        };
        if phi == plan.iv {
            iv_mid = Some(joined);
        }
        let slots: Vec<usize> = match f.kind(phi) {
            InstKind::Phi { blocks, .. } => (0..blocks.len()).filter(|&n| blocks[n] == p).collect(),
            _ => unreachable!("a phi"),
        };
        for n in slots {
            f.set_operand(phi, n, Value::Inst(joined));
        }
        f.replace_target(phi, p, p2);
    }
    // Values of the loop used after it: from the second loop, or from M when it did not
    // run (then the first did; M's phi has no value from P, where the second part runs).
    let live_out: Vec<Inst> = blocks
        .iter()
        .flat_map(|&b| f.block_insts(b))
        .filter(|&i| f.uses(Value::Inst(i)).iter().any(|u| !in_loop(f, u.inst)))
        .collect();
    let mut outside: Vec<(Inst, Value)> = Vec::new();
    for v in live_out {
        let copied = mapped(Value::Inst(v), &map);
        let from_m = if plan.guarded {
            let ty = f.inst(v).ty;
            let kind = InstKind::Phi {
                args: vec![Value::Undef(ty), copied],
                blocks: vec![p, x],
            };
            Value::Inst(f.append_inst(m, kind, ty))
        } else {
            copied
        };
        outside.push((v, from_m));
    }
    let mid_of = |v: Value| {
        outside
            .iter()
            .find(|&&(o, _)| Value::Inst(o) == v)
            .map_or(v, |&(_, from_m)| from_m)
    };
    // The second part runs when the loop goes on where the first part left: the counter
    // in M below `n`. Entered with its counter below `n`, M also holds the start when the
    // first part did not run, and the test holds for it; otherwise the second part takes
    // the first round whenever the first part did not, straight from P.
    let counter_at_m = if plan.guarded {
        Value::Inst(iv_mid.expect("the counter is a header phi"))
    } else {
        copy_next
    };
    let enter2 = f.append_inst(
        m,
        InstKind::icmp(IntPred::Slt, counter_at_m, plan.bound),
        Type::I1,
    );
    let branch = InstKind::CondBr {
        args: [Value::Inst(enter2)],
        targets: [p2, plan.exit],
    };
    f.append_inst(m, branch, Type::Void);
    // The exit's phis take M's values; other uses after the loop go through new phis.
    let exit_phis: Vec<Inst> = f.phis(plan.exit).collect();
    for phi in exit_phis {
        let v = f
            .phi_incoming(phi, plan.latch)
            .expect("the exit's phis take values from the latch");
        f.add_phi_incoming(phi, mid_of(v), m);
    }
    let first = f
        .first_inst(plan.exit)
        .expect("a block ends in a terminator");
    for &(v, from_m) in &outside {
        let users: Vec<(Inst, u32)> = f
            .uses(Value::Inst(v))
            .iter()
            .filter(|u| !in_loop(f, u.inst) && !f.phis(plan.exit).any(|phi| phi == u.inst))
            .map(|u| (u.inst, u.index))
            .collect();
        if users.is_empty() {
            continue;
        }
        let kind = InstKind::Phi {
            args: vec![Value::Inst(v), from_m],
            blocks: vec![plan.latch, m],
        };
        let ty = f.inst(v).ty;
        let joined = f.insert_inst_before(first, kind, ty);
        for (user, index) in users {
            if user != joined && Value::Inst(user) != from_m {
                f.set_operand(user, index as usize, Value::Inst(joined));
            }
        }
    }
    match &plan.reason {
        // Each part decides the comparison.
        &Reason::Test(cond, below) => {
            let copy_cond = mapped(Value::Inst(cond), &map);
            f.replace_all_uses(copy_cond, Value::Bool(below));
            f.replace_all_uses(Value::Inst(cond), Value::Bool(!below));
            for cond in [copy_cond, Value::Inst(cond)] {
                f.remove_inst(cond.as_inst().expect("a comparison"));
            }
        }
        // The first part's quotients are exact.
        Reason::Wrap(quotients) => {
            let iv = mapped(Value::Inst(plan.iv), &map);
            for &(quotient, factor) in quotients {
                let copy = mapped(Value::Inst(quotient), &map)
                    .as_inst()
                    .expect("copied");
                let exact = if factor == 1 {
                    iv
                } else {
                    let product = InstKind::binary(BinaryOp::Mul, iv, Value::Int(factor));
                    Value::Inst(f.insert_inst_before(copy, product, Type::I32))
                };
                let product = f.kind(copy).operands()[0];
                f.replace_all_uses(Value::Inst(copy), exact);
                f.remove_inst(copy);
                if let Some(product) = product.as_inst() {
                    if f.uses(Value::Inst(product)).is_empty() {
                        f.remove_inst(product);
                    }
                }
            }
        }
    }
}
