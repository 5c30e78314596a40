//! Reassociation: a tree of integer additions, subtractions and multiplications by
//! constants is a linear combination of its leaves, `c1*x1 + c2*x2 + ... + k`, because
//! wrapping 32-bit arithmetic is a ring (every order of evaluation gives the same bits). The
//! pass collects each combination and rebuilds it when that is cheaper under the cost model:
//! the seed's add-chain flattening and more. `x + 1 + 1 + ... + 1` becomes `x + n`;
//! `x + x + ... + x` becomes `x * n` once the adds cost more than the multiply;
//! `s + a + b + ... + s + a + b` (the same terms over and over)
//! becomes `(s + a + b) * n`; `a*c + b*c` becomes `(a + b) * c` for a constant `c`; terms that
//! cancel vanish. Leaves are ordered by the loop depth of their definitions, shallowest first,
//! and the constant joins the shallowest when they are defined outside the tree's own loop,
//! so the loop-invariant part of a sum is one subtree that code motion can hoist
//! (`row - c + n - 1` becomes `(row + n - 1) - c`); a tree is rebuilt at equal cost only to
//! bring that order about.
//!
//! Products of non-constant factors are the seed's multiply-chain flattening: a tree of
//! `mul`s is a product of its leaves' powers, rebuilt with each power by squaring when that
//! takes fewer multiplications (`x * x * x * x` is `(x * x) * (x * x)`, two instead of three).
//!
//! A tree is rooted at an instruction whose result is not used by exactly one tree node of
//! its own block; its interior nodes each have that one use, so each node belongs to one tree
//! and is visited once, and no computation moves into another block (or loop).
//!
//! Needs: the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{LoopInfo, Preserved};
use crate::cost_model::CostModel;
use crate::fast_hash::FastIndexMap;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let blocks: Vec<Block> = f.blocks().collect();
    let mut changed = false;
    for b in blocks {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            if f.inst_block(i).is_none() {
                continue;
            }
            if node(f, i).is_some() && !is_interior(f, i) {
                changed |= reassociate(f, cx.costs, &loops, i);
            } else if factors(f, i).is_some() && !is_interior_factor(f, i) {
                changed |= multiply_by_squaring(f, i);
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// How a tree node combines its operands: `add`, `sub`, or a multiplication of one operand
/// by a constant (the operand and the constant).
#[derive(Clone, Copy)]
enum Node {
    Add(Value, Value),
    Sub(Value, Value),
    Scale(Value, i32),
}

fn node(f: &Function, i: Inst) -> Option<Node> {
    match *f.kind(i) {
        InstKind::Binary { op, args: [a, b] } => match (op, a, b) {
            (BinaryOp::Add, _, _) => Some(Node::Add(a, b)),
            (BinaryOp::Sub, _, _) => Some(Node::Sub(a, b)),
            (BinaryOp::Mul, x, Value::Int(c)) | (BinaryOp::Mul, Value::Int(c), x) => {
                Some(Node::Scale(x, c))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `i` is inside a bigger tree: its one use is a tree node of the same block.
fn is_interior(f: &Function, i: Inst) -> bool {
    match f.uses(Value::Inst(i)) {
        [u] => f.inst_block(u.inst) == f.inst_block(i) && node(f, u.inst).is_some(),
        _ => false,
    }
}

/// A tree as a linear combination.
struct Combination {
    /// Each leaf's coefficient, leaves in left-to-right order.
    terms: FastIndexMap<Value, i32>,
    constant: i32,
    /// How many leaves the tree reads before its first constant.
    constant_at: usize,
    /// The tree's instructions, root first, each before its operands.
    nodes: Vec<Inst>,
}

impl Combination {
    /// The leaves in the order the tree reads them, `None` standing for the constant.
    fn order(&self) -> Vec<Option<Value>> {
        let mut order: Vec<Option<Value>> = self.terms.keys().map(|&v| Some(v)).collect();
        if self.constant != 0 {
            order.insert(self.constant_at.min(order.len()), None);
        }
        order
    }
}

fn collect(f: &Function, root: Inst) -> Combination {
    let block = f.inst_block(root);
    let mut c = Combination {
        terms: FastIndexMap::default(),
        constant: 0,
        constant_at: usize::MAX,
        nodes: Vec::new(),
    };
    let mut stack = vec![(Value::Inst(root), 1i32)];
    while let Some((v, k)) = stack.pop() {
        let inner = v
            .as_inst()
            .filter(|&i| i == root || (f.inst_block(i) == block && f.uses(v).len() == 1));
        match (v, inner.and_then(|i| node(f, i))) {
            (Value::Inst(i), Some(n)) => {
                c.nodes.push(i);
                // Right operand pushed first, so the left one is expanded first.
                match n {
                    Node::Add(a, b) => stack.extend([(b, k), (a, k)]),
                    Node::Sub(a, b) => stack.extend([(b, k.wrapping_neg()), (a, k)]),
                    Node::Scale(a, s) => stack.push((a, k.wrapping_mul(s))),
                }
            }
            (Value::Int(x), _) => {
                c.constant = c.constant.wrapping_add(k.wrapping_mul(x));
                c.constant_at = c.constant_at.min(c.terms.len());
            }
            _ => {
                let e = c.terms.entry(v).or_insert(0);
                *e = e.wrapping_add(k);
            }
        }
    }
    c.terms.retain(|_, k| *k != 0);
    c
}

/// The rebuilt form: groups of leaves with equal coefficients, each summed then scaled
/// once (leaves of coefficient 1 or -1 added to or subtracted from the sum so far one by
/// one), the groups added one after the other; the constant added after the first
/// `constant_after` groups (at least one).
struct Plan {
    /// Per group: its leaves and their coefficient.
    groups: Vec<(Vec<Value>, i32)>,
    constant: i32,
    constant_after: usize,
}

impl Plan {
    /// Leaves grouped by coefficient alone, shallowest first, and the constant last: the
    /// fewest multiplications.
    fn by_coefficient(c: &Combination, rank: impl Fn(Value) -> u32) -> Plan {
        let groups = Plan::grouped(c, |v| (0, rank(v)));
        let constant_after = groups.len();
        Plan {
            groups,
            constant: c.constant,
            constant_after,
        }
    }

    /// Leaves grouped by loop depth, then by coefficient, with the constant among the
    /// shallowest leaves when those are defined outside the tree's innermost loop (`depth`):
    /// each depth's part of the sum (`row + n - 1` in `row - c + n - 1`) is one subtree
    /// that code motion can hoist out of the loops deeper than it.
    fn by_depth(c: &Combination, rank: impl Fn(Value) -> u32, depth: u32) -> Plan {
        let groups = Plan::grouped(c, |v| (rank(v), 0));
        let shallowest = groups.first().map_or(depth, |(vs, _)| rank(vs[0]));
        let constant_after = if shallowest < depth {
            groups
                .iter()
                .take_while(|(vs, _)| rank(vs[0]) == shallowest)
                .count()
        } else {
            groups.len()
        };
        Plan {
            groups,
            constant: c.constant,
            constant_after,
        }
    }

    /// The leaves in order of `rank` (stable), grouped by rank and coefficient; the rank's
    /// first part orders the groups too, its second only the leaves within them.
    fn grouped(c: &Combination, rank: impl Fn(Value) -> (u32, u32)) -> Vec<(Vec<Value>, i32)> {
        let mut leaves: Vec<(Value, i32)> = c.terms.iter().map(|(&v, &k)| (v, k)).collect();
        leaves.sort_by_key(|&(v, _)| rank(v));
        let mut groups: FastIndexMap<(u32, i32), Vec<Value>> = FastIndexMap::default();
        for (v, k) in leaves {
            groups.entry((rank(v).0, k)).or_default().push(v);
        }
        groups.into_iter().map(|((_, k), vs)| (vs, k)).collect()
    }

    /// The leaves in the order the rebuilt tree reads them, `None` standing for the
    /// constant.
    fn order(&self) -> Vec<Option<Value>> {
        let mut order = Vec::new();
        for (g, (vs, _)) in self.groups.iter().enumerate() {
            if g == self.constant_after && self.constant != 0 {
                order.push(None);
            }
            order.extend(vs.iter().map(|&v| Some(v)));
        }
        if self.constant_after >= self.groups.len() && self.constant != 0 {
            order.push(None);
        }
        order
    }

    /// What the rebuilt tree's instructions cost.
    fn cost(&self, costs: &dyn CostModel) -> u32 {
        let mut cost = 0;
        self.emit(|op, _, _| {
            cost += costs.inst_cost(&InstKind::Binary {
                op,
                args: [Value::Int(0); 2],
            });
            Value::Int(0)
        });
        cost
    }

    /// Writes the plan out with `emit` (an operation and its operands, returning its
    /// result); the value it computes.
    fn emit(&self, mut emit: impl FnMut(BinaryOp, Value, Value) -> Value) -> Value {
        let constant = (self.constant != 0).then_some(Value::Int(self.constant));
        let mut acc: Option<Value> = None;
        for (g, (vs, c)) in self.groups.iter().enumerate() {
            if let (true, Some(a), Some(k)) = (g == self.constant_after, acc, constant) {
                acc = Some(emit(BinaryOp::Add, a, k));
            }
            acc = Some(match (acc, *c) {
                (Some(a), 1) => vs.iter().fold(a, |a, &v| emit(BinaryOp::Add, a, v)),
                (Some(a), -1) => vs.iter().fold(a, |a, &v| emit(BinaryOp::Sub, a, v)),
                (acc, c) => {
                    let term = vs[1..]
                        .iter()
                        .fold(vs[0], |t, &v| emit(BinaryOp::Add, t, v));
                    match (acc, c) {
                        (None, 1) => term,
                        (None, -1) => emit(BinaryOp::Sub, Value::Int(0), term),
                        (None, c) => emit(BinaryOp::Mul, term, Value::Int(c)),
                        (Some(a), c) => {
                            let scaled = emit(BinaryOp::Mul, term, Value::Int(c));
                            emit(BinaryOp::Add, a, scaled)
                        }
                    }
                }
            });
        }
        match (acc, constant) {
            (Some(a), Some(k)) if self.constant_after >= self.groups.len() => {
                emit(BinaryOp::Add, a, k)
            }
            (Some(a), _) => a,
            (None, _) => Value::Int(self.constant),
        }
    }
}

/// Rebuilds the tree rooted at `root` if that pays; returns whether it did.
fn reassociate(f: &mut Function, costs: &dyn CostModel, loops: &LoopInfo, root: Inst) -> bool {
    let c = collect(f, root);
    let leaf_rank = |v: Value| match v.as_inst().and_then(|i| f.inst_block(i)) {
        Some(b) => loops.depth(b),
        None => 0,
    };
    let depth = f.inst_block(root).map_or(0, |b| loops.depth(b));
    let plans = [
        Plan::by_depth(&c, leaf_rank, depth),
        Plan::by_coefficient(&c, leaf_rank),
    ];
    let plan = plans
        .into_iter()
        .min_by_key(|p| p.cost(costs))
        .expect("two plans");
    let old: u32 = c.nodes.iter().map(|&i| costs.inst_cost(f.kind(i))).sum();
    let new = plan.cost(costs);
    let current = c.order();
    // The constant counts with the shallowest leaves where the plan adds it among them;
    // elsewhere its place is free.
    let early = plan.constant_after < plan.groups.len();
    let shallowest = plan.groups.first().map_or(0, |(vs, _)| leaf_rank(vs[0]));
    let ranks: Vec<u32> = current
        .iter()
        .filter_map(|&v| match v {
            Some(v) => Some(leaf_rank(v)),
            None => early.then_some(shallowest),
        })
        .collect();
    let unsorted = ranks.windows(2).any(|w| w[0] > w[1]);
    if new > old || (new == old && !(unsorted && plan.order() != current)) {
        return false;
    }
    let value = plan.emit(|op, a, b| {
        Value::Inst(f.insert_inst_before(root, InstKind::Binary { op, args: [a, b] }, Type::I32))
    });
    f.replace_all_uses(Value::Inst(root), value);
    for &i in &c.nodes {
        f.remove_inst(i);
    }
    true
}

/// The operands of a multiplication of two non-constant values.
fn factors(f: &Function, i: Inst) -> Option<(Value, Value)> {
    match *f.kind(i) {
        InstKind::Binary {
            op: BinaryOp::Mul,
            args: [a, b],
        } if !a.is_constant() && !b.is_constant() => Some((a, b)),
        _ => None,
    }
}

/// Whether `i` is inside a bigger product: its one use is such a multiplication of the
/// same block.
fn is_interior_factor(f: &Function, i: Inst) -> bool {
    match f.uses(Value::Inst(i)) {
        [u] => f.inst_block(u.inst) == f.inst_block(i) && factors(f, u.inst).is_some(),
        _ => false,
    }
}

/// Multiplications that `x^e` takes by squaring: one per bit below the top, one per set
/// bit but the first.
fn squaring_cost(e: u32) -> u32 {
    (31 - e.leading_zeros()) + e.count_ones() - 1
}

/// Rebuilds the product rooted at `root` with powers by squaring if that takes fewer
/// multiplications; returns whether it did.
fn multiply_by_squaring(f: &mut Function, root: Inst) -> bool {
    let block = f.inst_block(root);
    let mut powers: FastIndexMap<Value, u32> = FastIndexMap::default();
    let mut nodes = Vec::new();
    let mut stack = vec![Value::Inst(root)];
    while let Some(v) = stack.pop() {
        let inner = v
            .as_inst()
            .filter(|&i| i == root || (f.inst_block(i) == block && f.uses(v).len() == 1));
        match inner.and_then(|i| factors(f, i).map(|ab| (i, ab))) {
            Some((i, (a, b))) => {
                nodes.push(i);
                stack.extend([b, a]);
            }
            None => *powers.entry(v).or_insert(0) += 1,
        }
    }
    let new: u32 =
        powers.values().map(|&e| squaring_cost(e)).sum::<u32>() + powers.len() as u32 - 1;
    if new >= nodes.len() as u32 {
        return false;
    }
    let mut mul = |a, b| {
        Value::Inst(f.insert_inst_before(
            root,
            InstKind::Binary {
                op: BinaryOp::Mul,
                args: [a, b],
            },
            Type::I32,
        ))
    };
    let mut product: Option<Value> = None;
    for (&v, &e) in &powers {
        let (mut base, mut e, mut power) = (v, e, None);
        loop {
            if e & 1 == 1 {
                power = Some(power.map_or(base, |p| mul(p, base)));
            }
            e >>= 1;
            if e == 0 {
                break;
            }
            base = mul(base, base);
        }
        let power = power.expect("a leaf's power is at least 1");
        product = Some(product.map_or(power, |p| mul(p, power)));
    }
    let product = product.expect("a product has a leaf");
    f.replace_all_uses(Value::Inst(root), product);
    for &i in &nodes {
        f.remove_inst(i);
    }
    true
}
