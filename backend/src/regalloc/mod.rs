//! Register allocation: replaces every virtual register by a physical one, adding spill
//! code and stack slots as needed. `graph` (iterated register coalescing, after relieving
//! extreme pressure by spilling, `pressure`) is the allocator of optimised builds;
//! `spill_everything` keeps every value in memory, for -O0.

mod adj_lists;
mod adjacency;
mod irc;
pub mod liveness;
mod node_set;
mod pressure;
mod spill;
pub mod spill_everything;
mod spill_queue;
mod split;
#[cfg(test)]
mod tests;

use crate::frame::Frame;
use crate::mir::*;

/// Allocatable registers of a class, in order of preference: the caller-saved ones first,
/// since they cost no save in the prologue. lr is allocatable (the prologue saves it when
/// it is written), and so is ip unless a load or store needs it for an offset it cannot
/// encode (`graph`).
pub fn allocatable(class: RegClass) -> Vec<PReg> {
    match class {
        RegClass::Int => [0, 1, 2, 3, 12, 14, 4, 5, 6, 7, 8, 9, 10, 11]
            .map(PReg)
            .to_vec(),
        RegClass::Float => (0..32).map(PReg::s).collect(),
        // q8 (d16) is the scratch of a float's conversion to double for a variadic call
        // (`VToDoubleCore`).
        RegClass::Vector => (9..16).map(PReg::q).collect(),
    }
}

/// The weight of a register occurrence in `block` for spill costs: its estimated
/// executions, capped at a million.
fn spill_weight(block: &MBlock) -> f64 {
    block.frequency.min(1e6)
}

/// Graph-colouring allocation of every register class: for each class, relieve extreme
/// pressure, then colour, spilling and colouring again until every register has a colour.
/// Where the frame that results has a load or store too far from sp for its immediate
/// offset, emission needs ip, so the function is allocated again without it.
pub fn graph(mf: &mut MFunction) {
    let unallocated = mf.clone();
    color(mf, |_| true);
    if Frame::new(mf).needs_ip(mf) {
        *mf = unallocated;
        color(mf, |p| p != PReg::IP);
    }
}

/// Colours every class with the allocatable registers that `usable` accepts.
fn color(mf: &mut MFunction, usable: impl Fn(PReg) -> bool) {
    // Per virtual register, whether spilling created it.
    let mut unspillable: Vec<bool> = Vec::new();
    let mut assignment: Vec<Option<PReg>> = Vec::new();
    for class in RegClass::ALL {
        // With no virtual register of the class there is nothing to colour.
        if !mf.vreg_classes.contains(&class) {
            continue;
        }
        let colors: Vec<PReg> = allocatable(class)
            .into_iter()
            .filter(|&p| usable(p))
            .collect();
        split::around_loops(mf, class, &colors);
        loop {
            let liveness = liveness::Liveness::new(mf, class);
            let relief = pressure::relief(mf, class, &liveness, &unspillable);
            if !relief.is_empty() {
                spill::rewrite(mf, &relief, &mut unspillable);
                continue;
            }
            match irc::color(mf, class, &liveness, &colors, &unspillable) {
                irc::Result::Colored(colors) => {
                    assignment.resize(colors.len(), None);
                    for (v, c) in colors.into_iter().enumerate() {
                        if mf.vreg_classes[v] == class {
                            assignment[v] = c;
                        }
                    }
                    break;
                }
                irc::Result::Spill(vregs) => spill::rewrite(mf, &vregs, &mut unspillable),
            }
        }
    }
    for block in &mut mf.blocks {
        for inst in &mut block.insts {
            inst.visit_regs(|r, _| {
                if let Reg::Virt(v) = *r {
                    *r = Reg::Phys(assignment[v.0 as usize].expect("every register coloured"));
                }
            });
        }
    }
    mf.vreg_classes.clear();
}
