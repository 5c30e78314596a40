//! The analysis manager: a per-function cache of analyses. A pass asks for what it needs
//! (computed on first request, then shared), and says when it finishes what its changes
//! preserved; the manager drops the rest. An analysis that depends only on the shape of
//! the control-flow graph (blocks and edges) survives passes that keep that shape.
//!
//! To catch a pass that claims to preserve an analysis it broke, `stale` recomputes every
//! cached analysis from scratch and compares it with the cached one.

use super::{Cfg, DomTree, LoopInfo, PostDomTree};
use crate::ir::Function;
use std::any::{Any, TypeId};
use std::rc::Rc;

/// What a pass's changes left valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserved {
    /// The pass changed nothing.
    All,
    /// Instructions changed, but no block or edge was added, removed or moved.
    Cfg,
    /// Anything may have changed.
    Nothing,
}

impl Preserved {
    pub fn changed(self) -> bool {
        self != Preserved::All
    }

    /// `Cfg` if `changed`, else `All`: for passes that never touch the CFG.
    pub fn cfg_if(changed: bool) -> Preserved {
        if changed {
            Preserved::Cfg
        } else {
            Preserved::All
        }
    }

    /// `Nothing` if `changed`, else `All`.
    pub fn nothing_if(changed: bool) -> Preserved {
        if changed {
            Preserved::Nothing
        } else {
            Preserved::All
        }
    }

    /// The weaker of two (what a sequence of changes preserves).
    pub fn meet(self, other: Preserved) -> Preserved {
        use Preserved::*;
        match (self, other) {
            (Nothing, _) | (_, Nothing) => Nothing,
            (Cfg, _) | (_, Cfg) => Cfg,
            (All, All) => All,
        }
    }
}

/// A fact about one function that the manager can cache.
pub trait FunctionAnalysis: Clone + PartialEq + std::fmt::Debug + 'static {
    /// How diagnostics name it.
    const NAME: &'static str;
    /// Whether it depends only on the CFG's shape, so passes preserving the CFG keep it.
    const CFG_SHAPED: bool;
    fn compute(f: &Function, analyses: &mut FunctionAnalyses) -> Self;
}

impl FunctionAnalysis for Cfg {
    const NAME: &'static str = "control-flow graph";
    const CFG_SHAPED: bool = true;
    fn compute(f: &Function, _: &mut FunctionAnalyses) -> Self {
        Cfg::new(f)
    }
}

impl FunctionAnalysis for DomTree {
    const NAME: &'static str = "dominator tree";
    const CFG_SHAPED: bool = true;
    fn compute(f: &Function, analyses: &mut FunctionAnalyses) -> Self {
        DomTree::new(&analyses.get::<Cfg>(f))
    }
}

impl FunctionAnalysis for PostDomTree {
    const NAME: &'static str = "post-dominator tree";
    const CFG_SHAPED: bool = true;
    fn compute(f: &Function, analyses: &mut FunctionAnalyses) -> Self {
        PostDomTree::new(f, &analyses.get::<Cfg>(f))
    }
}

impl FunctionAnalysis for LoopInfo {
    const NAME: &'static str = "loop forest";
    const CFG_SHAPED: bool = true;
    fn compute(f: &Function, analyses: &mut FunctionAnalyses) -> Self {
        let cfg = analyses.get::<Cfg>(f);
        LoopInfo::new(&cfg, &analyses.get::<DomTree>(f))
    }
}

struct Entry {
    type_id: TypeId,
    name: &'static str,
    cfg_shaped: bool,
    value: Rc<dyn Any>,
    /// Whether the cached value equals one recomputed from the function.
    is_fresh: fn(&dyn Any, &Function) -> bool,
}

fn is_fresh<A: FunctionAnalysis>(cached: &dyn Any, f: &Function) -> bool {
    let recomputed = A::compute(f, &mut FunctionAnalyses::default());
    cached.downcast_ref::<A>() == Some(&recomputed)
}

/// The cached analyses of one function.
#[derive(Default)]
pub struct FunctionAnalyses {
    entries: Vec<Entry>,
}

impl FunctionAnalyses {
    /// The analysis `A` of `f`, from the cache or computed now.
    pub fn get<A: FunctionAnalysis>(&mut self, f: &Function) -> Rc<A> {
        let id = TypeId::of::<A>();
        if let Some(e) = self.entries.iter().find(|e| e.type_id == id) {
            if let Ok(a) = Rc::clone(&e.value).downcast::<A>() {
                return a;
            }
        }
        let value = Rc::new(A::compute(f, self));
        self.entries.push(Entry {
            type_id: id,
            name: A::NAME,
            cfg_shaped: A::CFG_SHAPED,
            value: Rc::clone(&value) as Rc<dyn Any>,
            is_fresh: is_fresh::<A>,
        });
        value
    }

    pub fn cfg(&mut self, f: &Function) -> Rc<Cfg> {
        self.get(f)
    }

    pub fn dom(&mut self, f: &Function) -> Rc<DomTree> {
        self.get(f)
    }

    pub fn postdom(&mut self, f: &Function) -> Rc<PostDomTree> {
        self.get(f)
    }

    pub fn loops(&mut self, f: &Function) -> Rc<LoopInfo> {
        self.get(f)
    }

    /// Drops what `preserved` does not cover.
    pub fn invalidate(&mut self, preserved: Preserved) {
        match preserved {
            Preserved::All => {}
            Preserved::Cfg => self.entries.retain(|e| e.cfg_shaped),
            Preserved::Nothing => self.entries.clear(),
        }
    }

    /// Names of the cached analyses, in the order they were computed.
    pub fn cached(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }

    /// Names of the cached analyses that differ from a recomputation on `f`.
    pub fn stale(&self, f: &Function) -> Vec<&'static str> {
        self.entries
            .iter()
            .filter(|e| !(e.is_fresh)(e.value.as_ref(), f))
            .map(|e| e.name)
            .collect()
    }
}
