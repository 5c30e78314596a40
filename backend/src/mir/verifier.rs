//! Structural checks of a machine function: the layout lists every block the entry reaches
//! once (and may leave out blocks nothing reaches) with the entry first, each block ends in its terminators (conditional branches closed by `B`,
//! or `Ret`) with no control transfer before them, branch targets exist, and each block's
//! stored successor list is what its terminators name.

use super::{MBlockId, MFunction, MInst};

/// Checks `mf`, describing the first problem found.
pub fn verify(mf: &MFunction) -> Result<(), String> {
    let fail = |message: String| Err(format!("{}: {message}", mf.symbol));
    let mut placed = vec![false; mf.blocks.len()];
    for &b in &mf.layout {
        match placed.get_mut(b.index()) {
            Some(seen) if !*seen => *seen = true,
            Some(_) => return fail(format!("{b} is twice in the layout")),
            None => return fail(format!("layout names missing block {b}")),
        }
    }
    if mf.layout.first().is_some_and(|&b| b != MBlockId::ENTRY) {
        return fail("the layout does not start with the entry block".to_string());
    }
    if let Some(b) = mf
        .block_ids()
        .zip(mf.reached())
        .find_map(|(b, r)| (r && !placed[b.index()]).then_some(b))
    {
        return fail(format!("{b} is reached but not in the layout"));
    }
    for b in mf.block_ids() {
        let block = mf.block(b);
        let Some(last) = block.insts.last() else {
            return fail(format!("{b} is empty"));
        };
        if !matches!(
            last,
            MInst::B { .. } | MInst::Ret { .. } | MInst::TailCall { .. }
        ) {
            return fail(format!("{b} does not end in b, ret or a tail call"));
        }
        let body = block.insts.len() - 1;
        let first_branch = block.insts[..body]
            .iter()
            .position(MInst::is_terminator)
            .unwrap_or(body);
        if let Some(k) = block.insts[first_branch..body]
            .iter()
            .position(|i| !matches!(i, MInst::BCond { .. }))
        {
            return fail(format!(
                "{b}: instruction {} follows a branch",
                first_branch + k
            ));
        }
        if let Some(t) = block
            .insts
            .iter()
            .filter_map(MInst::target)
            .find(|t| t.index() >= mf.blocks.len())
        {
            return fail(format!("{b} branches to missing block {t}"));
        }
        let named = block.terminator_succs();
        if block.succs != named {
            return fail(format!(
                "{b}: successor list [{}] but the terminators name [{}]",
                names(&block.succs),
                names(&named)
            ));
        }
    }
    Ok(())
}

fn names(blocks: &[MBlockId]) -> String {
    let names: Vec<String> = blocks.iter().map(MBlockId::to_string).collect();
    names.join(", ")
}
