//! Allocator tests on hand-built machine IR. A small evaluator runs the allocated code
//! (calls clobber every caller-saved register with garbage; comparisons test equality
//! only) and checks the result, so a wrong allocation shows up as a wrong value.

use super::*;
use crate::mir::test_build::*;
use std::collections::HashMap;

/// Runs allocated straight-line-or-branching code from block 0; returns r0 (or s0's bits
/// converted back) at `Ret`, plus how many loads and stores of stack slots ran.
fn evaluate(mf: &MFunction) -> (u32, usize) {
    let mut regs: HashMap<PReg, u32> = HashMap::new();
    let mut slots: HashMap<(Slot, i32), u32> = HashMap::new();
    let mut slot_traffic = 0;
    let mut b = 0usize;
    let mut pc = 0usize;
    let mut steps = 0;
    // The flags, as whether the last comparison found its operands equal.
    let mut equal = false;
    let get = |regs: &HashMap<PReg, u32>, x: Reg| -> u32 {
        let p = x.phys().expect("allocated");
        *regs
            .get(&p)
            .unwrap_or_else(|| panic!("{p} read before written"))
    };
    loop {
        steps += 1;
        assert!(steps < 100_000, "runaway");
        let inst = &mf.blocks[b].insts[pc];
        pc += 1;
        let set = |regs: &mut HashMap<PReg, u32>, x: Reg, val: u32| {
            regs.insert(x.phys().expect("allocated"), val);
        };
        match inst {
            MInst::Mov {
                rd,
                src: Operand2::Imm(i),
                cond: None,
            } => set(&mut regs, *rd, *i),
            MInst::Alu {
                cond: None,
                op: AluOp::Add,
                rd,
                rn,
                src: Operand2::Reg(rm),
            } => {
                let val = get(&regs, *rn).wrapping_add(get(&regs, *rm));
                set(&mut regs, *rd, val);
            }
            MInst::Copy { dst, src } => {
                let val = get(&regs, *src);
                set(&mut regs, *dst, val);
            }
            MInst::VBin {
                op: VOp::Add,
                sd,
                sn,
                sm,
            } => {
                let val = f32::from_bits(get(&regs, *sn)) + f32::from_bits(get(&regs, *sm));
                set(&mut regs, *sd, val.to_bits());
            }
            MInst::VMovFromCore { sd, rn } => {
                let val = (get(&regs, *rn) as f32).to_bits();
                set(&mut regs, *sd, val);
            }
            MInst::VMovToCore { rd, sn } => {
                let val = f32::from_bits(get(&regs, *sn)) as u32;
                set(&mut regs, *rd, val);
            }
            MInst::Ldr { .. } | MInst::VLdr { .. } | MInst::Str { .. } | MInst::VStr { .. } => {
                let Some((load, reg, key)) = inst.slot_access() else {
                    panic!("evaluator lacks {inst:?}")
                };
                slot_traffic += 1;
                if load {
                    set(&mut regs, reg, slots[&key]);
                } else {
                    slots.insert(key, get(&regs, reg));
                }
            }
            MInst::Bl { defs, .. } => {
                for p in caller_saved() {
                    regs.insert(p, 0xdead_0000 + p.0 as u32);
                }
                for d in defs {
                    set(&mut regs, *d, 7);
                }
            }
            MInst::Alu {
                cond: None,
                op: AluOp::Sub,
                rd,
                rn,
                src: Operand2::Imm(i),
            } => {
                let val = get(&regs, *rn).wrapping_sub(*i);
                set(&mut regs, *rd, val);
            }
            MInst::Cmp {
                cond: None,
                rn,
                src: Operand2::Imm(i),
            } => equal = get(&regs, *rn) == *i,
            MInst::BCond {
                cond: Cond::Ne,
                target,
            } => {
                if !equal {
                    b = target.index();
                    pc = 0;
                }
            }
            MInst::B { target } => {
                b = target.index();
                pc = 0;
            }
            MInst::Ret { .. } => return (regs[&PReg::R0], slot_traffic),
            other => panic!("evaluator lacks {other:?}"),
        }
    }
}

fn all_physical(mf: &MFunction) -> bool {
    mf.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .all(|i| i.regs().iter().all(|(r, _)| r.phys().is_some()))
}

/// Constants 1 to `n` in `%v0`..., then `between`, then their sum in r0, returned: all `n`
/// live at once.
fn summed_constants(n: u32, between: Vec<MInst>) -> MFunction {
    let mut insts: Vec<MInst> = (0..n).map(|k| mov(v(k), k + 1)).collect();
    insts.extend(between);
    insts.push(mov(v(n), 0));
    for k in 0..n {
        insts.push(add(v(n + 1 + k), v(n + k), v(k)));
    }
    insts.push(MInst::Copy {
        dst: r(0),
        src: v(2 * n),
    });
    insts.push(MInst::Ret { uses: vec![r(0)] });
    func(&vec![RegClass::Int; 2 * n as usize + 1], vec![insts])
}

#[test]
fn more_live_values_than_registers_spill_and_still_add_up() {
    // 30 values, all live until the end, summed: 14 int registers cannot hold them.
    let n = 30;
    let mut mf = summed_constants(n, Vec::new());
    graph(&mut mf);
    assert!(all_physical(&mf));
    let (result, _) = evaluate(&mf);
    assert_eq!(result, (1..=n).sum::<u32>());
}

/// Twenty values, each the sum of the two before it (so none can be rematerialised and each
/// is read by the next two additions), then their sum: more live at once than there are
/// registers. Returns the function and the sum it computes.
fn fibonacci_pressure() -> (MFunction, u32) {
    let n = 20;
    let mut insts = vec![mov(v(0), 1), mov(v(1), 2)];
    for k in 2..n {
        insts.push(add(v(k), v(k - 1), v(k - 2)));
    }
    let mut acc = n;
    insts.push(mov(v(acc), 0));
    for k in 0..n {
        insts.push(add(v(acc + 1), v(acc), v(k)));
        acc += 1;
    }
    insts.push(MInst::Copy {
        dst: r(0),
        src: v(acc),
    });
    insts.push(MInst::Ret { uses: vec![r(0)] });
    let mut fib = vec![1u32, 2];
    for k in 2..n as usize {
        fib.push(fib[k - 1] + fib[k - 2]);
    }
    let mf = func(&vec![RegClass::Int; acc as usize + 1], vec![insts]);
    (mf, fib.iter().sum())
}

#[test]
fn values_pressured_into_slots_are_stored_and_reloaded() {
    let (mut mf, sum) = fibonacci_pressure();
    graph(&mut mf);
    let (result, traffic) = evaluate(&mf);
    assert_eq!(result, sum);
    assert!(traffic > 0, "expected spill code");
    assert!(!mf.objects.is_empty());
}

/// Eight constants (10 to 17) and eight sums of neighbouring ones, all live at once, more
/// than the allocatable registers, then their total: the allocated function and the total.
/// Constant k is read by sums k - 1 and k, one after the other, and once more for the
/// total.
fn constants_and_sums() -> (MFunction, u32) {
    let mut insts: Vec<MInst> = (0..8).map(|k| mov(v(k), 10 + k)).collect();
    for k in 0..8 {
        insts.push(add(v(8 + k), v(k), v((k + 1) % 8)));
    }
    let mut acc = 16;
    insts.push(mov(v(acc), 0));
    for k in 0..16 {
        insts.push(add(v(acc + 1), v(acc), v(k)));
        acc += 1;
    }
    insts.push(MInst::Copy {
        dst: r(0),
        src: v(acc),
    });
    insts.push(MInst::Ret { uses: vec![r(0)] });
    let mut mf = func(&vec![RegClass::Int; acc as usize + 1], vec![insts]);
    graph(&mut mf);
    (mf, 3 * (10..18).sum::<u32>())
}

#[test]
fn under_pressure_constants_are_rematerialised_before_computed_values_spill() {
    // Spilling constants costs a `mov` at each use and no slot.
    let (mf, total) = constants_and_sums();
    let (result, traffic) = evaluate(&mf);
    assert_eq!(result, total);
    assert_eq!(traffic, 0, "{mf}");
}

#[test]
fn a_rematerialised_constant_used_again_within_three_instructions_is_built_once() {
    // A constant is rebuilt for the total and once for its two sums, not once for each.
    let (mf, total) = constants_and_sums();
    assert_eq!(evaluate(&mf).0, total);
    for k in 11..18 {
        let built = mf.blocks[0]
            .insts
            .iter()
            .filter(|i| matches!(i, MInst::Mov { src: Operand2::Imm(x), .. } if *x == k))
            .count();
        assert!(built <= 2, "{k} built {built} times:\n{mf}");
    }
}

#[test]
fn a_spilled_value_used_again_within_three_instructions_is_loaded_once() {
    let (mut mf, sum) = fibonacci_pressure();
    graph(&mut mf);
    assert_eq!(evaluate(&mf).0, sum);
    // No slot is loaded again within three instructions of its last load or store.
    let mut last: HashMap<Slot, usize> = HashMap::new();
    for (at, inst) in mf.blocks[0].insts.iter().enumerate() {
        match inst {
            MInst::Ldr {
                addr: Addr::Slot(slot, _),
                ..
            } => {
                if let Some(&before) = last.get(slot) {
                    assert!(at - before > 3, "{slot:?} reloaded at {at}:\n{mf}");
                }
                last.insert(*slot, at);
            }
            MInst::Str {
                addr: Addr::Slot(slot, _),
                ..
            } => {
                last.insert(*slot, at);
            }
            _ => {}
        }
    }
}

#[test]
fn values_live_across_calls_avoid_caller_saved_registers() {
    let insts = vec![
        mov(v(0), 40),
        mov(v(1), 2),
        MInst::Bl {
            sym: "f".into(),
            uses: vec![],
            defs: vec![r(0)],
        },
        MInst::Copy {
            dst: v(2),
            src: r(0),
        },
        add(v(3), v(0), v(1)),
        add(v(4), v(3), v(2)),
        MInst::Copy {
            dst: r(0),
            src: v(4),
        },
        MInst::Ret { uses: vec![r(0)] },
    ];
    let mut mf = func(&[RegClass::Int; 5], vec![insts]);
    graph(&mut mf);
    let (result, _) = evaluate(&mf);
    assert_eq!(result, 49);
    // v0 and v1 survive the call in callee-saved registers (or are recomputed after it).
    let before_call: Vec<&MInst> = mf.blocks[0]
        .insts
        .iter()
        .take_while(|i| !i.is_call())
        .collect();
    for inst in before_call {
        for (reg, role) in inst.regs() {
            if role == Role::Def {
                let p = reg.phys().unwrap();
                assert!(
                    !caller_saved().any(|c| c == p),
                    "{inst:?} defines caller-saved {p}"
                );
            }
        }
    }
}

#[test]
fn mixed_int_and_float_pressure() {
    // 20 floats and 20 ints live at once; the float sum is converted and added to the ints.
    let n = 20u32;
    let mut classes = Vec::new();
    let mut insts = Vec::new();
    for k in 0..n {
        classes.push(RegClass::Int);
        insts.push(mov(v(2 * k), k));
        classes.push(RegClass::Float);
        insts.push(MInst::VMovFromCore {
            sd: v(2 * k + 1),
            rn: v(2 * k),
        });
    }
    let mut int_acc = 2 * n;
    classes.push(RegClass::Int);
    insts.push(mov(v(int_acc), 1000));
    for k in 0..n {
        classes.push(RegClass::Int);
        insts.push(add(v(int_acc + 1 + k), v(int_acc + k), v(2 * k)));
    }
    int_acc += n;
    let mut float_acc = int_acc + 1;
    classes.push(RegClass::Float);
    insts.push(MInst::VMovFromCore {
        sd: v(float_acc),
        rn: v(2 * n),
    });
    for k in 0..n {
        classes.push(RegClass::Float);
        insts.push(MInst::VBin {
            op: VOp::Add,
            sd: v(float_acc + 1),
            sn: v(float_acc),
            sm: v(2 * k + 1),
        });
        float_acc += 1;
    }
    let total = float_acc + 1;
    classes.push(RegClass::Int);
    insts.push(MInst::VMovToCore {
        rd: v(total),
        sn: v(float_acc),
    });
    classes.push(RegClass::Int);
    insts.push(add(v(total + 1), v(total), v(int_acc)));
    insts.push(MInst::Copy {
        dst: r(0),
        src: v(total + 1),
    });
    insts.push(MInst::Ret { uses: vec![r(0)] });
    let mut mf = func(&classes, vec![insts]);
    graph(&mut mf);
    assert!(all_physical(&mf));
    let (result, _) = evaluate(&mf);
    let ints: u32 = 1000 + (0..n).sum::<u32>();
    let floats: u32 = 1000 + (0..n).sum::<u32>();
    assert_eq!(result, ints + floats);
}

#[test]
fn copies_between_coalescable_registers_vanish() {
    let insts = vec![
        mov(v(0), 5),
        MInst::Copy {
            dst: v(1),
            src: v(0),
        },
        MInst::Copy {
            dst: v(2),
            src: v(1),
        },
        add(v(3), v(2), v(2)),
        MInst::Copy {
            dst: r(0),
            src: v(3),
        },
        MInst::Ret { uses: vec![r(0)] },
    ];
    let mut mf = func(&[RegClass::Int; 4], vec![insts]);
    graph(&mut mf);
    crate::peephole::run(&mut mf);
    assert_eq!(evaluate(&mf).0, 10);
    let copies = mf.blocks[0]
        .insts
        .iter()
        .filter(|i| matches!(i, MInst::Copy { .. }))
        .count();
    assert_eq!(copies, 0, "{:?}", mf.blocks[0].insts);
}

#[test]
fn spill_everything_shares_slots_between_block_local_values() {
    // v0 crosses into block 1; each block then runs a chain of 19 doublings whose links
    // are each live for one instruction.
    let chain = |insts: &mut Vec<MInst>, from: u32, to: u32| {
        for k in from..to {
            insts.push(add(v(k), v(k - 1), v(k - 1)));
        }
    };
    let mut entry = vec![mov(v(0), 5), mov(v(1), 1)];
    chain(&mut entry, 2, 20);
    entry.push(MInst::B {
        target: MBlockId(1),
    });
    let mut exit = vec![mov(v(20), 3), add(v(21), v(20), v(0))];
    chain(&mut exit, 22, 40);
    exit.push(MInst::Copy {
        dst: r(0),
        src: v(39),
    });
    exit.push(MInst::Ret { uses: vec![r(0)] });
    let mut mf = func(&[RegClass::Int; 40], vec![entry, exit]);
    spill_everything::allocate(&mut mf);
    assert!(all_physical(&mf));
    let (result, _) = evaluate(&mf);
    assert_eq!(result, 8 << 18);
    // One slot for v0, two shared by every chain.
    assert_eq!(mf.objects.len(), 3);
}

#[test]
fn copies_of_values_with_over_a_thousand_neighbours_stay_right() {
    // v0 and the sum v1 live across 1,100 short-lived values, so each has over 1,024
    // neighbours (`MAX_SCANNED`): their moves are not tried for coalescing, whose tests would
    // scan every neighbour for each move (quadratic on 10,000 nested loops).
    let n = 1_100u32;
    let mut insts = vec![mov(v(0), 7), mov(v(1), 0)];
    for k in 0..n {
        insts.push(mov(v(2 + k), k));
        insts.push(add(v(1), v(1), v(2 + k)));
    }
    let copy = v(2 + n);
    insts.push(MInst::Copy {
        dst: copy,
        src: v(0),
    });
    insts.push(add(v(3 + n), copy, v(1)));
    insts.push(MInst::Copy {
        dst: r(0),
        src: v(3 + n),
    });
    insts.push(MInst::Ret { uses: vec![r(0)] });
    let mut mf = func(&vec![RegClass::Int; 4 + n as usize], vec![insts]);
    graph(&mut mf);
    assert!(all_physical(&mf));
    assert_eq!(evaluate(&mf).0, 7 + n * (n - 1) / 2);
}

/// Fourteen values live at once, as many as there are core registers with ip, each stored
/// into a local array of 2,000 words at byte `offset + 4k` and summed. Returns the
/// allocated function and whether it gives ip a value.
fn fourteen_live_and_an_array_store(offset: i32) -> (MFunction, bool) {
    let n = 14;
    let stores = (0..n)
        .map(|k| MInst::Str {
            cond: None,
            rs: v(k),
            addr: Addr::Slot(Slot::Local(0), offset + 4 * k as i32),
        })
        .collect();
    let mut mf = summed_constants(n, stores);
    mf.new_object(8000);
    graph(&mut mf);
    let (result, _) = evaluate(&mf);
    assert_eq!(result, (1..=n).sum::<u32>());
    let uses_ip = mf
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.regs().iter().any(|(r, _)| *r == Reg::Phys(PReg::IP)));
    (mf, uses_ip)
}

#[test]
fn ip_holds_a_value_unless_a_stack_offset_needs_it() {
    // Stores near sp: ip is a register like the others, and nothing spills.
    let (near, uses_ip) = fourteen_live_and_an_array_store(0);
    assert!(uses_ip);
    assert_eq!(near.objects.len(), 1, "nothing spilled");
    // Stores 6,000 bytes up the array, beyond `str`'s immediate: emission adds the offset
    // into ip, so allocation leaves it free (and rebuilds a constant where it is needed).
    let (far, uses_ip) = fourteen_live_and_an_array_store(6000);
    assert!(!uses_ip);
    assert!(Frame::new(&far).needs_ip(&far));
}

/// `v0 = v1 + v2`, `v0 += 1` under a condition, then `v3 = v0 + v0`, with `gap` other
/// instructions before the use that follows the first definition (none: no use there); after
/// spilling v0 alone: the stores of its slot.
fn spill_stores_of_two_definitions(gap: Option<u32>) -> usize {
    let mut insts = vec![mov(v(1), 5), mov(v(2), 6), add(v(0), v(1), v(2))];
    if let Some(gap) = gap {
        for k in 0..gap {
            insts.push(mov(v(5 + k), k));
        }
        insts.push(add(v(4), v(0), v(1)));
    }
    insts.extend([
        MInst::Cmp {
            cond: None,
            rn: v(1),
            src: Operand2::Reg(v(2)),
        },
        MInst::Alu {
            cond: Some(Cond::Gt),
            op: AluOp::Add,
            rd: v(0),
            rn: v(0),
            src: Operand2::Imm(1),
        },
        add(v(3), v(0), v(0)),
        MInst::Copy {
            dst: r(0),
            src: v(3),
        },
        MInst::Ret { uses: vec![r(0)] },
    ]);
    let mut mf = func(&[RegClass::Int; 12], vec![insts]);
    let mut unspillable = vec![false; 12];
    spill::rewrite(&mut mf, &[VReg(0)], &mut unspillable);
    mf.blocks[0]
        .insts
        .iter()
        .filter(|i| matches!(i.slot_access(), Some((false, ..))))
        .count()
}

#[test]
fn a_spill_store_that_a_later_one_overwrites_goes() {
    assert_eq!(spill_stores_of_two_definitions(None), 1);
}

#[test]
fn a_spill_store_read_back_before_the_next_one_stays() {
    // Six instructions later the use loads the slot again, so the first store is read.
    assert_eq!(spill_stores_of_two_definitions(Some(6)), 2);
}

/// An outer loop of three rounds reading `x` (the argument) three times in its header
/// and once in its latch, around an inner loop of two rounds that reads `inner` values
/// computed from an accumulator across a call and adds them into it: the function, with
/// block frequencies estimated, and the value it returns for `x = 5` (in r0 at entry).
/// The header also computes `acc + x` `at_once` times into values all live together,
/// then adds them into the accumulator.
fn loop_around_a_crowded_loop(inner: u32, at_once: u32) -> (MFunction, u32) {
    let (x, acc, i, j, t) = (v(0), v(1), v(2), v(3), v(4));
    let value = |k: u32| v(5 + k);
    let together = |k: u32| v(5 + inner + k);
    let mut header = vec![add(t, x, x), add(acc, acc, t), add(acc, acc, x)];
    header.extend((0..at_once).map(|k| add(together(k), acc, x)));
    header.extend((0..at_once).map(|k| add(acc, acc, together(k))));
    header.extend([mov(j, 2), b(2)]);
    let mut inner_body: Vec<MInst> = vec![add(value(0), acc, acc)];
    for k in 1..inner {
        inner_body.push(add(value(k), value(k - 1), acc));
    }
    inner_body.push(MInst::Bl {
        sym: "f".into(),
        uses: vec![],
        defs: vec![],
    });
    for k in 0..inner {
        inner_body.push(add(acc, acc, value(k)));
    }
    let count_down = |counter: Reg, target: u32, next: u32| {
        vec![
            MInst::Alu {
                cond: None,
                op: AluOp::Sub,
                rd: counter,
                rn: counter,
                src: Operand2::Imm(1),
            },
            MInst::Cmp {
                cond: None,
                rn: counter,
                src: Operand2::Imm(0),
            },
            bcond(Cond::Ne, target),
            b(next),
        ]
    };
    inner_body.extend(count_down(j, 2, 3));
    let mut latch = vec![add(acc, acc, x)];
    latch.extend(count_down(i, 1, 4));
    let blocks = vec![
        vec![
            MInst::Copy { dst: x, src: r(0) },
            mov(acc, 1),
            mov(i, 3),
            b(1),
        ],
        header,
        inner_body,
        latch,
        vec![
            MInst::Copy {
                dst: r(0),
                src: acc,
            },
            ret(),
        ],
    ];
    let mut mf = func(&vec![RegClass::Int; (5 + inner + at_once) as usize], blocks);
    let nest = crate::mir::loops::LoopNest::new(&mf);
    let frequencies = crate::mir::loops::block_frequencies(&mf, &nest);
    for (block, frequency) in mf.blocks.iter_mut().zip(frequencies) {
        block.frequency = frequency;
    }
    let x = 5u32;
    let mut acc = 1u32;
    for _ in 0..3 {
        acc = acc.wrapping_add(3 * x);
        let sum = acc.wrapping_add(x);
        acc = acc.wrapping_add(sum.wrapping_mul(at_once));
        for _ in 0..2 {
            let mut values = vec![acc.wrapping_add(acc)];
            for k in 1..inner as usize {
                values.push(values[k - 1].wrapping_add(acc));
            }
            for value in values {
                acc = acc.wrapping_add(value);
            }
        }
        acc = acc.wrapping_add(x);
    }
    (mf, acc)
}

/// Runs the allocated function with r0 = 5 at entry.
fn evaluate_with_5(mf: &MFunction) -> (u32, usize) {
    let mut mf = mf.clone();
    mf.blocks[0].insts.insert(0, mov(r(0), 5));
    evaluate(&mf)
}

#[test]
fn a_value_used_around_a_crowded_loop_keeps_a_register_where_it_is_used() {
    // Ten values and the accumulator live across the inner loop's call, more than the
    // eight callee-saved registers: x, unused in the inner loop, is stored on entering it
    // and loaded on leaving, and read from a register in the outer loop's header.
    let (mut mf, expected) = loop_around_a_crowded_loop(10, 0);
    graph(&mut mf);
    assert_eq!(evaluate_with_5(&mf).0, expected, "{mf}");
    let loads_in_header = mf.blocks[1]
        .insts
        .iter()
        .filter(|i| i.slot_access().is_some_and(|(load, ..)| load))
        .count();
    assert_eq!(loads_in_header, 0, "{mf}");
}

#[test]
fn a_loop_with_registers_to_spare_is_not_split() {
    let (mut mf, expected) = loop_around_a_crowded_loop(4, 0);
    assert!(!split::around_loops(
        &mut mf,
        RegClass::Int,
        &allocatable(RegClass::Int)
    ));
    graph(&mut mf);
    assert_eq!(evaluate_with_5(&mf).0, expected, "{mf}");
}

#[test]
fn a_value_used_where_its_own_loop_is_crowded_without_a_call_is_still_split() {
    // The outer loop's header holds 14 sums at once beside x and the accumulator, more
    // than the 14 colours, but calls nothing there: x is split around the inner loop all
    // the same, which frees a callee-saved register for the inner loop's values.
    let (mut mf, expected) = loop_around_a_crowded_loop(10, 14);
    let mut split_copy = mf.clone();
    split::around_loops(&mut split_copy, RegClass::Int, &allocatable(RegClass::Int));
    let x_copied = split_copy.blocks[1]
        .insts
        .iter()
        .any(|i| matches!(i, MInst::Copy { src, .. } if *src == v(0)));
    assert!(x_copied, "{split_copy}");
    graph(&mut mf);
    assert_eq!(evaluate_with_5(&mf).0, expected, "{mf}");
}
