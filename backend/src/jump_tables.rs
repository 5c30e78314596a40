//! jump-tables: a chain of blocks that compare one register with a constant each and branch
//! away on equality (an `if`/`else if` chain on one value, as an interpreter's dispatch on
//! its opcode is) becomes one jump through a table: `sub t, x, #min` and a `JumpTable` on
//! `t`, whose entries send each constant to its block and every other value in the range to
//! where the chain's last compare fell through. A chain of `MIN_CASES` constants or more
//! costs the same three or four instructions whichever value comes (a bounds test and a
//! load of the entry's address into `pc` under it, the table's own address taken on entry),
//! where the compares cost one pair per constant tested before the match.
//!
//! The chain starts at a block that ends in `cmp x, #c`, a branch on equality and one on
//! inequality (either order); each further link is a block with nothing else, entered only
//! from the link before it, comparing the same register. A constant met twice keeps its
//! first block (the second compare never succeeds). Constants below `MAX_ENTRIES` (an
//! interpreter's characters or opcodes) index a table from 0 as they are; larger ones one
//! from the smallest constant to the largest, at most `MAX_SPREAD` entries per constant and
//! `MAX_ENTRIES` in all.
//! The links after the first are left jumping to the default, unreached; `branches` drops
//! them.
//!
//! Needs: virtual registers (runs before allocation). Preserves: behaviour.

use crate::imm::is_operand2;
use crate::mir::*;

/// The fewest distinct constants that make a table.
const MIN_CASES: usize = 5;
/// The most table entries per constant.
const MAX_SPREAD: u32 = 8;
/// The most entries of one table (the bound of its `cmp` is an 8-bit immediate).
const MAX_ENTRIES: u32 = 256;

pub fn run(mf: &mut MFunction) {
    let preds = mf.preds();
    let reached = mf.reached();
    let mut linked = vec![false; mf.blocks.len()];
    for head in mf.layout.clone() {
        // A block the entry does not reach (behind a branch on a constant) is left out of
        // the output, and with it the table the entry would take the address of.
        if linked[head.index()] || !reached[head.index()] {
            continue;
        }
        let Some((x, first)) = link_of(mf.block(head)) else {
            continue;
        };
        let mut cases = vec![first];
        let mut links = Vec::new();
        let mut next = first.2;
        while let Some((y, link)) = only_link(mf.block(next)) {
            if y != x || preds[next.index()] != [links.last().copied().unwrap_or(head)] {
                break;
            }
            links.push(next);
            cases.push(link);
            next = link.2;
        }
        if let Some(table) = table(&cases) {
            for &b in &links {
                linked[b.index()] = true;
            }
            rewrite(mf, head, x, table, &links);
        }
    }
}

/// One compare of a chain: the constant, the block taken on equality, the block taken
/// otherwise.
type Case = (u32, MBlockId, MBlockId);

/// The register and case of a block that ends in a compare with a constant and branches on
/// (in)equality.
fn link_of(block: &MBlock) -> Option<(Reg, Case)> {
    let n = block.insts.len();
    let [MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(c),
    }, MInst::BCond { cond, target }, MInst::B { target: other }] =
        block.insts.get(n.checked_sub(3)?..)?
    else {
        return None;
    };
    match cond {
        Cond::Eq => Some((*rn, (*c, *target, *other))),
        Cond::Ne => Some((*rn, (*c, *other, *target))),
        _ => None,
    }
}

/// The register and case of a block that holds nothing but a link.
fn only_link(block: &MBlock) -> Option<(Reg, Case)> {
    (block.insts.len() == 3).then(|| link_of(block)).flatten()
}

/// A planned table: its smallest constant and its entries, and where other values go.
struct Table {
    min: u32,
    entries: Vec<MBlockId>,
    default: MBlockId,
}

fn table(cases: &[Case]) -> Option<Table> {
    let default = cases.last()?.2;
    let mut distinct: Vec<(u32, MBlockId)> = Vec::new();
    for &(c, to, _) in cases {
        if !distinct.iter().any(|&(d, _)| d == c) {
            distinct.push((c, to));
        }
    }
    let min = distinct.iter().map(|&(c, _)| c).min()?;
    let max = distinct.iter().map(|&(c, _)| c).max()?;
    // Small codes index the table as they are, saving the subtraction.
    let min = if max < MAX_ENTRIES { 0 } else { min };
    let spread = max - min + 1;
    let fits = distinct.len() >= MIN_CASES
        && (min == 0
            || (spread <= MAX_ENTRIES
                && spread <= MAX_SPREAD * distinct.len() as u32
                && is_operand2(min)));
    if !fits {
        return None;
    }
    let mut entries = vec![default; spread as usize];
    for &(c, to) in &distinct {
        entries[(c - min) as usize] = to;
    }
    Some(Table {
        min,
        entries,
        default,
    })
}

fn rewrite(mf: &mut MFunction, head: MBlockId, x: Reg, table: Table, links: &[MBlockId]) {
    let index = if table.min == 0 {
        x
    } else {
        mf.new_vreg(RegClass::Int)
    };
    let base = mf.new_vreg(RegClass::Int);
    let label = format!(".Ljt_{}_{}", mf.symbol, head.0);
    let block = mf.block_mut(head);
    block.insts.truncate(block.insts.len() - 3);
    if table.min != 0 {
        block.insts.push(MInst::Alu {
            cond: None,
            op: AluOp::Sub,
            rd: index,
            rn: x,
            src: Operand2::Imm(table.min),
        });
    }
    block.insts.push(MInst::JumpTable {
        index,
        table: base,
        label: label.clone(),
        targets: table.entries,
        default: table.default,
    });
    block.succs = block.terminator_succs();
    // The table's address is taken once, at the end of the entry block, like a global's.
    let entry = &mut mf.block_mut(MBlockId::ENTRY).insts;
    let end = entry
        .iter()
        .position(MInst::is_terminator)
        .expect("a block ends in a terminator");
    entry.insert(
        end,
        MInst::LoadSym {
            rd: base,
            sym: label,
        },
    );
    for &b in links {
        let block = mf.block_mut(b);
        block.insts = vec![MInst::B {
            target: table.default,
        }];
        block.succs = block.terminator_succs();
    }
}

#[cfg(test)]
#[path = "jump_tables_tests.rs"]
mod tests;
