//! Graph colouring with iterated register coalescing (George and Appel, "Iterated Register
//! Coalescing", TOPLAS 1996), for one register class: build the interference graph, then
//! simplify, coalesce (Briggs's test between virtual registers, George's against a physical
//! one), freeze and select spill candidates until the graph is empty, and colour in reverse.
//! Spill candidates are chosen by spill cost (uses and defs weighted by 10^loop depth) over
//! degree. Returns a colour per virtual register of the class, or the registers to spill.
//!
//! Every step costs time in proportion to the nodes and moves it touches: the graph is
//! built from the liveness as a list of edges, grouped by node and deduplicated afterwards
//! (`adj_lists`; `adjacency` answers membership), neighbours and moves are visited in place, moves no longer active are
//! skipped for good, chains of coalesced nodes are shortened as they are followed,
//! Briggs's test first compares counts of significant neighbours kept up to date and
//! otherwise stops at the K-th, a move between nodes with more than `MAX_SCANNED`
//! neighbours together is not coalesced, and the spill worklist is a priority queue.
//! The order in which nodes and moves are visited, and so the colouring, is that of the
//! textbook algorithm with adjacency lists in order of discovery.
//!
//! Needs: liveness of the class (`Liveness`). Preserves: the function (it only colours).

use super::adj_lists::AdjLists;
use super::adjacency::AdjSet;
use super::liveness::{defs_uses, node, Liveness, PHYS_NODES};
use super::node_set::NodeSet;
use super::spill::remat_costs;
use super::spill_queue::SpillQueue;
use super::spill_weight;
use crate::mir::*;

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
    adj_list: AdjLists,
    adj: AdjSet,
    alias: Vec<u32>,
    color: Vec<Option<PReg>>,
    move_list: Vec<Vec<u32>>,
    /// Per node, where in its move list a move may still be active.
    first_move: Vec<u32>,
    moves: Vec<(u32, u32)>,
    move_state: Vec<MoveState>,
    simplify: Vec<u32>,
    freeze: Vec<u32>,
    spill: SpillQueue,
    worklist_moves: Vec<u32>,
    select: Vec<u32>,
    cost: Vec<f64>,
    /// Per virtual register, whether spilling created it: spilling it again would not help.
    unspillable: &'a [bool],
    /// Per node not precoloured, how many of its neighbours still in the graph are
    /// significant (degree K or more): Briggs's test needs no scan when the two counts
    /// add up to less than K.
    significant: Vec<u32>,
    /// Per node, the last Briggs's test that counted it.
    counted: Vec<u32>,
    tests: u32,
}

const INFINITE_DEGREE: usize = usize::MAX / 4;

/// The most neighbours the coalescing tests scan: a move involving a node with more stays a
/// copy. A value live across thousands of blocks (the result of the innermost of 10,000
/// nested loops, read by every latch) meets thousands of moves, and scanning its
/// neighbours for each made coalescing quadratic.
const MAX_SCANNED: usize = 1024;

/// What reloading a spilled register costs, against what rematerialising a value costs
/// (`spill::remat_cost`).
const LOAD_COST: f64 = 3.0;

pub fn color(
    mf: &MFunction,
    class: RegClass,
    liveness: &Liveness,
    colors: &[PReg],
    unspillable: &[bool],
) -> Result {
    let n = PHYS_NODES + mf.vreg_classes.len();
    let mut irc = Irc {
        k: colors.len(),
        colors,
        state: vec![NodeState::Absent; n],
        degree: vec![0; n],
        adj_list: AdjLists::new(0, &[]),
        adj: AdjSet::Matrix(Vec::new(), 0),
        alias: (0..n as u32).collect(),
        color: vec![None; n],
        move_list: vec![Vec::new(); n],
        first_move: vec![0; n],
        moves: Vec::new(),
        move_state: Vec::new(),
        simplify: Vec::new(),
        freeze: Vec::new(),
        spill: SpillQueue::default(),
        worklist_moves: Vec::new(),
        select: Vec::new(),
        cost: vec![0.0; n],
        unspillable,
        significant: vec![0; n],
        counted: vec![0; n],
        tests: 0,
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
    irc.build(mf, class, liveness);
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
    /// Spilling a register that can be rematerialised repeats its definition before each
    /// use instead of loading it there (and storing it after each definition): its spill
    /// cost, counted in `build`, is scaled by what that definition costs against a load's
    /// `LOAD_COST`.
    fn discount_rematerialisable(&mut self, mf: &MFunction) {
        for (v, remat) in remat_costs(mf).into_iter().enumerate() {
            if let Some(c) = remat {
                self.cost[PHYS_NODES + v] *= (c as f64 / LOAD_COST).min(1.0);
            }
        }
    }

    fn is_precolored(&self, u: usize) -> bool {
        self.state[u] == NodeState::Precolored
    }

    fn build(&mut self, mf: &MFunction, class: RegClass, liveness: &Liveness) {
        let mut live = NodeSet::new(self.state.len());
        let (mut defs, mut uses) = (Vec::new(), Vec::new());
        // (node, neighbour) pairs as found, perhaps repeated.
        let mut edges = Vec::new();
        for b in mf.block_ids() {
            let block = mf.block(b);
            let weight = spill_weight(block);
            live.clear();
            for x in liveness.live_out(mf, b) {
                live.insert(x);
            }
            for inst in block.insts.iter().rev() {
                defs_uses(mf, inst, class, &mut defs, &mut uses);
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
                        self.push_edge(&mut edges, l, d);
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
        self.discount_rematerialisable(mf);
        self.finish_graph(&edges);
    }

    /// Records an edge found while building, perhaps again: `finish_graph` drops repeats.
    fn push_edge(&self, edges: &mut Vec<(u32, u32)>, u: usize, v: usize) {
        if u == v {
            return;
        }
        for (x, y) in [(u, v), (v, u)] {
            if !self.is_precolored(x) {
                edges.push((x as u32, y as u32));
            }
        }
    }

    /// Makes the adjacency lists, keeping the first occurrence of each neighbour (the
    /// order in which the edges were found), sets the degrees, and makes the membership
    /// relation.
    fn finish_graph(&mut self, edges: &[(u32, u32)]) {
        let n = self.state.len();
        self.adj_list = AdjLists::new(n, edges);
        for u in 0..n {
            if self.state[u] != NodeState::Precolored {
                self.degree[u] = self.adj_list.len(u);
            }
        }
        self.adj = AdjSet::new(&self.adj_list);
        for u in 0..n {
            self.significant[u] = self.count_significant(u);
        }
    }

    fn is_significant(&self, u: usize) -> bool {
        self.degree[u] >= self.k
    }

    /// The significant neighbours of `u` still in the graph, counted afresh.
    fn count_significant(&self, u: usize) -> u32 {
        self.adjacent(u).filter(|&v| self.is_significant(v)).count() as u32
    }

    /// Counts `u`'s change of significance (`by` is 1 or -1) at its neighbours in the
    /// graph but `except`.
    fn tell_neighbours(&mut self, u: usize, except: usize, by: i32) {
        for k in 0..self.adj_list.len(u) {
            if let Some(v) = self.adjacent_at(u, k) {
                if v != except && !self.is_precolored(v) {
                    self.significant[v] = self.significant[v].wrapping_add_signed(by);
                }
            }
        }
    }

    fn add_edge(&mut self, u: usize, v: usize) {
        if u == v || self.adj.contains(u, v) {
            return;
        }
        self.adj.insert(u, v);
        for (x, y) in [(u, v), (v, u)] {
            if !self.is_precolored(x) {
                self.adj_list.push(x, y);
                self.degree[x] += 1;
                if self.state[x] == NodeState::Spill {
                    // Its spill score fell.
                    self.spill.push(x, self.spill_score(x));
                }
                if self.degree[x] == self.k {
                    self.tell_neighbours(x, y, 1);
                }
            }
        }
        for (x, y) in [(u, v), (v, u)] {
            if !self.is_precolored(x) && self.is_significant(y) {
                self.significant[x] += 1;
            }
        }
    }

    /// Spill cost over degree; infinite for registers that spilling created.
    fn spill_score(&self, u: usize) -> f64 {
        let v = u - PHYS_NODES;
        if self.unspillable.get(v).copied().unwrap_or(false) {
            f64::INFINITY
        } else {
            self.cost[u] / self.degree[u].max(1) as f64
        }
    }

    fn push_spill(&mut self, u: usize) {
        self.state[u] = NodeState::Spill;
        self.spill.push(u, self.spill_score(u));
    }

    fn make_worklists(&mut self) {
        for u in PHYS_NODES..self.state.len() {
            if self.state[u] != NodeState::Initial {
                continue;
            }
            if self.degree[u] >= self.k {
                self.push_spill(u);
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

    /// The `k`-th neighbour of `u` in its adjacency list if it is still in the graph.
    /// Neighbours are visited by index so that the visitor may change the graph: none of
    /// the steps visiting them changes `u`'s list or takes a node out of the graph.
    fn adjacent_at(&self, u: usize, k: usize) -> Option<usize> {
        let v = self.adj_list.get(u, k);
        (!matches!(self.state[v], NodeState::OnStack | NodeState::Coalesced)).then_some(v)
    }

    /// Neighbours still in the graph.
    fn adjacent(&self, u: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.adj_list.len(u)).filter_map(move |k| self.adjacent_at(u, k))
    }

    fn is_active(&self, m: usize) -> bool {
        matches!(self.move_state[m], MoveState::Active | MoveState::Worklist)
    }

    /// Whether `u` has a move that may still be coalesced. Moves never become active
    /// again, so the inactive ones at the front of its list are skipped once and for all.
    fn move_related(&mut self, u: usize) -> bool {
        let list = &self.move_list[u];
        let mut k = self.first_move[u] as usize;
        while k < list.len() && !self.is_active(list[k] as usize) {
            k += 1;
        }
        self.first_move[u] = k as u32;
        k < list.len()
    }

    fn simplify_node(&mut self, u: usize) {
        self.state[u] = NodeState::OnStack;
        self.select.push(u as u32);
        let significant = self.is_significant(u);
        for k in 0..self.adj_list.len(u) {
            if let Some(v) = self.adjacent_at(u, k) {
                if significant && !self.is_precolored(v) {
                    self.significant[v] -= 1;
                }
                self.decrement_degree(v);
            }
        }
    }

    fn decrement_degree(&mut self, u: usize) {
        if self.is_precolored(u) {
            return;
        }
        let d = self.degree[u];
        self.degree[u] = d - 1;
        if d == self.k {
            for k in 0..self.adj_list.len(u) {
                if let Some(v) = self.adjacent_at(u, k) {
                    if !self.is_precolored(v) {
                        self.significant[v] -= 1;
                    }
                    self.enable_moves(v);
                }
            }
            self.enable_moves(u);
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

    fn enable_moves(&mut self, u: usize) {
        for k in 0..self.move_list[u].len() {
            let m = self.move_list[u][k] as usize;
            if self.move_state[m] == MoveState::Active {
                self.move_state[m] = MoveState::Worklist;
                self.worklist_moves.push(m as u32);
            }
        }
    }

    /// The node `u` was coalesced into, through any chain of coalescings. The chain is
    /// then shortened to point straight at it (coalesced nodes never change again), so that
    /// long chains are walked once.
    fn alias_of(&mut self, u: usize) -> usize {
        let mut root = u;
        while self.state[root] == NodeState::Coalesced {
            root = self.alias[root] as usize;
        }
        let mut x = u;
        while self.state[x] == NodeState::Coalesced {
            x = std::mem::replace(&mut self.alias[x], root as u32) as usize;
        }
        root
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

    /// Briggs's test: the node merging `u` and `v` has fewer than K significant neighbours.
    fn conservative(&mut self, u: usize, v: usize) -> bool {
        debug_assert_eq!(self.significant[u], self.count_significant(u));
        debug_assert_eq!(self.significant[v], self.count_significant(v));
        if ((self.significant[u] + self.significant[v]) as usize) < self.k {
            return true;
        }
        self.tests += 1;
        let mut significant = 0;
        for x in [u, v] {
            for k in 0..self.adj_list.len(x) {
                let Some(t) = self.adjacent_at(x, k) else {
                    continue;
                };
                if self.counted[t] != self.tests && self.degree[t] >= self.k {
                    self.counted[t] = self.tests;
                    significant += 1;
                    if significant == self.k {
                        return false;
                    }
                }
            }
        }
        true
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
            let safe = if self.adj_list.len(u) + self.adj_list.len(v) > MAX_SCANNED {
                false
            } else if self.is_precolored(u) {
                self.adjacent(v).all(|t| self.ok(t, u))
            } else {
                self.conservative(u, v)
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
        let active: Vec<u32> = moves
            .iter()
            .copied()
            .filter(|&m| self.is_active(m as usize))
            .collect();
        self.move_list[u].extend(active);
        self.move_list[v] = moves;
        self.enable_moves(v);
        let significant = self.is_significant(v);
        for k in 0..self.adj_list.len(v) {
            if let Some(t) = self.adjacent_at(v, k) {
                if significant && !self.is_precolored(t) {
                    self.significant[t] -= 1;
                }
                self.add_edge(t, u);
                self.decrement_degree(t);
            }
        }
        if self.degree[u] >= self.k && self.state[u] == NodeState::Freeze {
            self.push_spill(u);
        }
    }

    fn freeze_node(&mut self, u: usize) {
        self.state[u] = NodeState::Simplify;
        self.simplify.push(u as u32);
        self.freeze_moves(u);
    }

    fn freeze_moves(&mut self, u: usize) {
        for k in 0..self.move_list[u].len() {
            let m = self.move_list[u][k] as usize;
            if !self.is_active(m) {
                continue;
            }
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
        let mut spill = std::mem::take(&mut self.spill);
        let best =
            spill.pop_min(|u| (self.state[u] == NodeState::Spill).then(|| self.spill_score(u)));
        self.spill = spill;
        best
    }

    fn select_spill(&mut self, u: usize) {
        self.state[u] = NodeState::Simplify;
        self.simplify.push(u as u32);
        self.freeze_moves(u);
    }

    /// The node at the other end of `u`'s `k`-th move, aliases resolved (`u` itself for a
    /// move that coalescing made a no-op).
    fn move_partner(&mut self, u: usize, k: usize) -> usize {
        let (a, b) = self.moves[self.move_list[u][k] as usize];
        let (a, b) = (self.alias_of(a as usize), self.alias_of(b as usize));
        if a == u {
            b
        } else {
            a
        }
    }

    /// Marks in `colors` the colours of those of `u`'s first `limit` neighbours that have
    /// one.
    fn mark_neighbour_colors(&mut self, u: usize, limit: usize, colors: &mut [bool; PHYS_NODES]) {
        for k in 0..self.adj_list.len(u).min(limit) {
            let a = self.alias_of(self.adj_list.get(u, k));
            if matches!(self.state[a], NodeState::Colored | NodeState::Precolored) {
                if let Some(c) = self.color[a] {
                    colors[c.0 as usize] = true;
                }
            }
        }
    }

    /// The colour of a node that `u` has a move with, already coloured, if no neighbour of
    /// `u` has it (`taken`) and it is allocatable: giving `u` that colour makes the move a
    /// no-op where coalescing was refused (biased colouring). The first such move, in the
    /// order of `u`'s move list.
    fn partner_color(&mut self, u: usize, taken: &[bool; PHYS_NODES]) -> Option<PReg> {
        for k in 0..self.move_list[u].len() {
            let other = self.move_partner(u, k);
            if other == u
                || !matches!(
                    self.state[other],
                    NodeState::Colored | NodeState::Precolored
                )
            {
                continue;
            }
            if let Some(c) = self.color[other] {
                if !taken[c.0 as usize] && self.colors.contains(&c) {
                    return Some(c);
                }
            }
        }
        None
    }

    /// A colour free for `u` (`taken` are its neighbours' colours) and for a copy partner
    /// of it still to be coloured, which then takes it too (`partner_color`) unless a
    /// neighbour coloured in between takes it first. Scans at most `MAX_SCANNED` moves and
    /// neighbours.
    fn color_free_for_a_partner(&mut self, u: usize, taken: &[bool; PHYS_NODES]) -> Option<PReg> {
        for k in 0..self.move_list[u].len().min(MAX_SCANNED) {
            let p = self.move_partner(u, k);
            if p == u || self.state[p] != NodeState::OnStack {
                continue;
            }
            let mut both = *taken;
            self.mark_neighbour_colors(p, MAX_SCANNED, &mut both);
            if let Some(c) = self.colors.iter().copied().find(|c| !both[c.0 as usize]) {
                return Some(c);
            }
        }
        None
    }

    fn assign_colors(mut self) -> Result {
        let mut spilled = Vec::new();
        while let Some(u) = self.select.pop() {
            let u = u as usize;
            let mut taken = [false; PHYS_NODES];
            self.mark_neighbour_colors(u, usize::MAX, &mut taken);
            let partner = self
                .partner_color(u, &taken)
                .or_else(|| self.color_free_for_a_partner(u, &taken));
            let first_free = || self.colors.iter().copied().find(|c| !taken[c.0 as usize]);
            match partner.or_else(first_free) {
                Some(c) => {
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
                let a = self.alias_of(u);
                self.color[u] = self.color[a];
            }
        }
        Result::Colored(self.color[PHYS_NODES..].to_vec())
    }
}
