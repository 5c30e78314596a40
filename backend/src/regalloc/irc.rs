//! Graph colouring with iterated register coalescing (George and Appel, "Iterated Register
//! Coalescing", TOPLAS 1996), for one register class: build the interference graph, then
//! simplify, coalesce (Briggs's test between virtual registers, George's against a physical
//! one), freeze and select spill candidates until the graph is empty, and colour in reverse.
//! Spill candidates are chosen by spill cost (uses and defs weighted by 10^loop depth) over
//! degree. Returns a colour per virtual register of the class, or the registers to spill.

use super::liveness::{defs_uses, live_out, node, PHYS_NODES};
use crate::mir::*;
use middle::bitset::BitSet;
use std::collections::HashSet;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NodeState {
    /// A physical register.
    Precolored,
    /// A virtual register of another class, or not in the function.
    Absent,
    Initial,
    Simplify,
    Freeze,
    Spill,
    Spilled,
    Coalesced,
    Colored,
    OnStack,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MoveState {
    Worklist,
    Active,
    Coalesced,
    Constrained,
    Frozen,
}

/// The interference relation: a bit matrix for functions of moderate size, a hash set above.
enum AdjSet {
    Matrix(BitSet, usize),
    Hash(HashSet<(u32, u32)>),
}

impl AdjSet {
    fn new(n: usize) -> AdjSet {
        if n <= 16_384 {
            AdjSet::Matrix(BitSet::new(n * n), n)
        } else {
            AdjSet::Hash(HashSet::new())
        }
    }

    fn contains(&self, u: usize, v: usize) -> bool {
        match self {
            AdjSet::Matrix(bits, n) => bits.contains(u * n + v),
            AdjSet::Hash(set) => set.contains(&(u as u32, v as u32)),
        }
    }

    fn insert(&mut self, u: usize, v: usize) {
        match self {
            AdjSet::Matrix(bits, n) => {
                bits.insert(u * *n + v);
                bits.insert(v * *n + u);
            }
            AdjSet::Hash(set) => {
                set.insert((u as u32, v as u32));
                set.insert((v as u32, u as u32));
            }
        }
    }
}

pub enum Result {
    /// The colour of each node (physical register), for virtual registers of the class.
    Colored(Vec<Option<PReg>>),
    Spill(Vec<VReg>),
}

struct Irc<'a> {
    k: usize,
    /// Allocatable registers, in order of preference.
    colors: &'a [PReg],
    state: Vec<NodeState>,
    degree: Vec<usize>,
    adj_list: Vec<Vec<u32>>,
    adj: AdjSet,
    alias: Vec<u32>,
    color: Vec<Option<PReg>>,
    move_list: Vec<Vec<u32>>,
    moves: Vec<(u32, u32)>,
    move_state: Vec<MoveState>,
    simplify: Vec<u32>,
    freeze: Vec<u32>,
    spill: Vec<u32>,
    worklist_moves: Vec<u32>,
    select: Vec<u32>,
    cost: Vec<f64>,
    /// Registers created by spilling: spilling them again would not help.
    unspillable: &'a HashSet<VReg>,
}

const INFINITE_DEGREE: usize = usize::MAX / 4;

pub fn color(
    mf: &MFunction,
    class: RegClass,
    colors: &[PReg],
    unspillable: &HashSet<VReg>,
) -> Result {
    let n = PHYS_NODES + mf.vreg_classes.len();
    let mut irc = Irc {
        k: colors.len(),
        colors,
        state: vec![NodeState::Absent; n],
        degree: vec![0; n],
        adj_list: vec![Vec::new(); n],
        adj: AdjSet::new(n),
        alias: (0..n as u32).collect(),
        color: vec![None; n],
        move_list: vec![Vec::new(); n],
        moves: Vec::new(),
        move_state: Vec::new(),
        simplify: Vec::new(),
        freeze: Vec::new(),
        spill: Vec::new(),
        worklist_moves: Vec::new(),
        select: Vec::new(),
        cost: vec![0.0; n],
        unspillable,
    };
    for p in 0..PHYS_NODES {
        if PReg(p as u8).class() == class {
            irc.state[p] = NodeState::Precolored;
            irc.degree[p] = INFINITE_DEGREE;
            irc.color[p] = Some(PReg(p as u8));
        }
    }
    for (v, &c) in mf.vreg_classes.iter().enumerate() {
        if c == class {
            irc.state[PHYS_NODES + v] = NodeState::Initial;
        }
    }
    irc.build(mf, class);
    irc.make_worklists();
    loop {
        if let Some(u) = irc.pop_simplify() {
            irc.simplify_node(u);
        } else if let Some(m) = irc.pop_move() {
            irc.coalesce(m);
        } else if let Some(u) = irc.pop_freeze() {
            irc.freeze_node(u);
        } else if let Some(u) = irc.choose_spill() {
            irc.select_spill(u);
        } else {
            break;
        }
    }
    irc.assign_colors()
}

impl Irc<'_> {
    fn is_precolored(&self, u: usize) -> bool {
        self.state[u] == NodeState::Precolored
    }

    fn build(&mut self, mf: &MFunction, class: RegClass) {
        let live_out = live_out(mf, class);
        for (b, block) in mf.blocks.iter().enumerate() {
            let weight = 10f64.powi(block.loop_depth.min(6) as i32);
            let mut live = live_out[b].clone();
            for inst in block.insts.iter().rev() {
                let (defs, uses) = defs_uses(mf, inst, class);
                for &x in defs.iter().chain(&uses) {
                    self.cost[x] += weight;
                }
                if let MInst::Copy { dst, src } = inst {
                    if mf.class_of(*dst) == class {
                        let (d, s) = (node(*dst), node(*src));
                        live.remove(s);
                        let m = self.moves.len() as u32;
                        self.moves.push((d as u32, s as u32));
                        self.move_state.push(MoveState::Worklist);
                        self.move_list[d].push(m);
                        if s != d {
                            self.move_list[s].push(m);
                        }
                        self.worklist_moves.push(m);
                    }
                }
                for &d in &defs {
                    live.insert(d);
                }
                for &d in &defs {
                    for l in live.iter() {
                        self.add_edge(l, d);
                    }
                }
                for &d in &defs {
                    live.remove(d);
                }
                for &u in &uses {
                    live.insert(u);
                }
            }
        }
    }

    fn add_edge(&mut self, u: usize, v: usize) {
        if u == v || self.adj.contains(u, v) {
            return;
        }
        self.adj.insert(u, v);
        if !self.is_precolored(u) {
            self.adj_list[u].push(v as u32);
            self.degree[u] += 1;
        }
        if !self.is_precolored(v) {
            self.adj_list[v].push(u as u32);
            self.degree[v] += 1;
        }
    }

    fn make_worklists(&mut self) {
        for u in PHYS_NODES..self.state.len() {
            if self.state[u] != NodeState::Initial {
                continue;
            }
            if self.degree[u] >= self.k {
                self.state[u] = NodeState::Spill;
                self.spill.push(u as u32);
            } else if self.move_related(u) {
                self.state[u] = NodeState::Freeze;
                self.freeze.push(u as u32);
            } else {
                self.state[u] = NodeState::Simplify;
                self.simplify.push(u as u32);
            }
        }
    }

    fn pop_simplify(&mut self) -> Option<usize> {
        while let Some(u) = self.simplify.pop() {
            if self.state[u as usize] == NodeState::Simplify {
                return Some(u as usize);
            }
        }
        None
    }

    fn pop_move(&mut self) -> Option<usize> {
        while let Some(m) = self.worklist_moves.pop() {
            if self.move_state[m as usize] == MoveState::Worklist {
                return Some(m as usize);
            }
        }
        None
    }

    fn pop_freeze(&mut self) -> Option<usize> {
        while let Some(u) = self.freeze.pop() {
            if self.state[u as usize] == NodeState::Freeze {
                return Some(u as usize);
            }
        }
        None
    }

    /// Neighbours still in the graph.
    fn adjacent(&self, u: usize) -> Vec<usize> {
        self.adj_list[u]
            .iter()
            .map(|&v| v as usize)
            .filter(|&v| !matches!(self.state[v], NodeState::OnStack | NodeState::Coalesced))
            .collect()
    }

    fn node_moves(&self, u: usize) -> Vec<usize> {
        self.move_list[u]
            .iter()
            .map(|&m| m as usize)
            .filter(|&m| matches!(self.move_state[m], MoveState::Active | MoveState::Worklist))
            .collect()
    }

    fn move_related(&self, u: usize) -> bool {
        self.move_list[u].iter().any(|&m| {
            matches!(
                self.move_state[m as usize],
                MoveState::Active | MoveState::Worklist
            )
        })
    }

    fn simplify_node(&mut self, u: usize) {
        self.state[u] = NodeState::OnStack;
        self.select.push(u as u32);
        for v in self.adjacent(u) {
            self.decrement_degree(v);
        }
    }

    fn decrement_degree(&mut self, u: usize) {
        if self.is_precolored(u) {
            return;
        }
        let d = self.degree[u];
        self.degree[u] = d - 1;
        if d == self.k {
            let mut nodes = self.adjacent(u);
            nodes.push(u);
            self.enable_moves(&nodes);
            if self.state[u] == NodeState::Spill {
                if self.move_related(u) {
                    self.state[u] = NodeState::Freeze;
                    self.freeze.push(u as u32);
                } else {
                    self.state[u] = NodeState::Simplify;
                    self.simplify.push(u as u32);
                }
            }
        }
    }

    fn enable_moves(&mut self, nodes: &[usize]) {
        for &u in nodes {
            for m in self.node_moves(u) {
                if self.move_state[m] == MoveState::Active {
                    self.move_state[m] = MoveState::Worklist;
                    self.worklist_moves.push(m as u32);
                }
            }
        }
    }

    fn alias_of(&self, mut u: usize) -> usize {
        while self.state[u] == NodeState::Coalesced {
            u = self.alias[u] as usize;
        }
        u
    }

    fn add_worklist(&mut self, u: usize) {
        if !self.is_precolored(u) && !self.move_related(u) && self.degree[u] < self.k {
            self.state[u] = NodeState::Simplify;
            self.simplify.push(u as u32);
        }
    }

    /// George's test: coalescing `v` into precolored `r` is safe if every neighbour of `v`
    /// is insignificant, precolored, or already interferes with `r`.
    fn ok(&self, t: usize, r: usize) -> bool {
        self.degree[t] < self.k || self.is_precolored(t) || self.adj.contains(t, r)
    }

    /// Briggs's test: the merged node has fewer than K significant neighbours.
    fn conservative(&self, nodes: &[usize]) -> bool {
        let mut seen = HashSet::new();
        let significant = nodes
            .iter()
            .filter(|&&n| seen.insert(n) && self.degree[n] >= self.k)
            .count();
        significant < self.k
    }

    fn coalesce(&mut self, m: usize) {
        let (x, y) = self.moves[m];
        let (x, y) = (self.alias_of(x as usize), self.alias_of(y as usize));
        let (u, v) = if self.is_precolored(y) {
            (y, x)
        } else {
            (x, y)
        };
        if u == v {
            self.move_state[m] = MoveState::Coalesced;
            self.add_worklist(u);
        } else if self.is_precolored(v) || self.adj.contains(u, v) {
            self.move_state[m] = MoveState::Constrained;
            self.add_worklist(u);
            self.add_worklist(v);
        } else {
            let safe = if self.is_precolored(u) {
                self.adjacent(v).iter().all(|&t| self.ok(t, u))
            } else {
                let mut nodes = self.adjacent(u);
                nodes.extend(self.adjacent(v));
                self.conservative(&nodes)
            };
            if safe {
                self.move_state[m] = MoveState::Coalesced;
                self.combine(u, v);
                self.add_worklist(u);
            } else {
                self.move_state[m] = MoveState::Active;
            }
        }
    }

    fn combine(&mut self, u: usize, v: usize) {
        self.state[v] = NodeState::Coalesced;
        self.alias[v] = u as u32;
        let moves = std::mem::take(&mut self.move_list[v]);
        self.move_list[u].extend(&moves);
        self.move_list[v] = moves;
        self.enable_moves(&[v]);
        for t in self.adjacent(v) {
            self.add_edge(t, u);
            self.decrement_degree(t);
        }
        if self.degree[u] >= self.k && self.state[u] == NodeState::Freeze {
            self.state[u] = NodeState::Spill;
            self.spill.push(u as u32);
        }
    }

    fn freeze_node(&mut self, u: usize) {
        self.state[u] = NodeState::Simplify;
        self.simplify.push(u as u32);
        self.freeze_moves(u);
    }

    fn freeze_moves(&mut self, u: usize) {
        for m in self.node_moves(u) {
            let (x, y) = self.moves[m];
            let (x, y) = (self.alias_of(x as usize), self.alias_of(y as usize));
            let v = if y == self.alias_of(u) { x } else { y };
            self.move_state[m] = MoveState::Frozen;
            if self.state[v] == NodeState::Freeze
                && !self.move_related(v)
                && self.degree[v] < self.k
            {
                self.state[v] = NodeState::Simplify;
                self.simplify.push(v as u32);
            }
        }
    }

    /// The spill candidate with the least cost per degree, avoiding spill temporaries.
    fn choose_spill(&mut self) -> Option<usize> {
        self.spill
            .retain(|&u| self.state[u as usize] == NodeState::Spill);
        let score = |u: usize| {
            let infinite =
                u >= PHYS_NODES && self.unspillable.contains(&VReg((u - PHYS_NODES) as u32));
            if infinite {
                f64::INFINITY
            } else {
                self.cost[u] / self.degree[u].max(1) as f64
            }
        };
        let best = self
            .spill
            .iter()
            .map(|&u| u as usize)
            .min_by(|&a, &b| score(a).total_cmp(&score(b)).then(a.cmp(&b)))?;
        Some(best)
    }

    fn select_spill(&mut self, u: usize) {
        self.state[u] = NodeState::Simplify;
        self.simplify.push(u as u32);
        self.freeze_moves(u);
    }

    fn assign_colors(mut self) -> Result {
        let mut spilled = Vec::new();
        while let Some(u) = self.select.pop() {
            let u = u as usize;
            let mut taken = [false; PHYS_NODES];
            for &w in &self.adj_list[u] {
                let a = self.alias_of(w as usize);
                if matches!(self.state[a], NodeState::Colored | NodeState::Precolored) {
                    if let Some(c) = self.color[a] {
                        taken[c.0 as usize] = true;
                    }
                }
            }
            match self.colors.iter().find(|c| !taken[c.0 as usize]) {
                Some(&c) => {
                    self.state[u] = NodeState::Colored;
                    self.color[u] = Some(c);
                }
                None => {
                    self.state[u] = NodeState::Spilled;
                    spilled.push(VReg((u - PHYS_NODES) as u32));
                }
            }
        }
        if !spilled.is_empty() {
            spilled.sort();
            return Result::Spill(spilled);
        }
        for u in PHYS_NODES..self.state.len() {
            if self.state[u] == NodeState::Coalesced {
                self.color[u] = self.color[self.alias_of(u)];
            }
        }
        Result::Colored(self.color[PHYS_NODES..].to_vec())
    }
}
