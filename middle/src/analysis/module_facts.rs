//! Module-wide facts: a memory-effect summary of every function and which globals are never
//! written after initialisation. Needs the module (and builds its `CallGraph`); linear in
//! its size, plus a fixpoint inside each recursive component whose rounds are bounded by
//! the number of facts that can change.
//!
//! Every pointer operand is traced back through `gep` bases to its root: a global, a
//! parameter, an `alloca` of the function, or unknown (a phi, a load, a call result, ...).
//! A use of a pointer other than as a load or store address, a `gep` base or a call
//! argument (a phi, a ret, a stored value, a compare, ...) lets its root escape: an escaping
//! global is not constant, and an escaping parameter counts as read and written through.
//! So memory reached through an unknown pointer is always memory whose root escaped and was
//! marked there; accesses through unknown pointers count as global accesses.
//!
//! Summaries are computed bottom-up over the call graph's components: a call has its
//! callee's effects, with an access through the callee's parameter `i` mapped to the root
//! of the caller's argument `i` (an `alloca` of the caller: invisible; a global: a global
//! access; a parameter of the caller: an access through it; unknown: a global access).

use super::alias::Object;
use super::CallGraph;
use crate::ir::{Callee, FuncId, Function, GlobalId, Inst, InstKind, Module, Type, Value};
use std::collections::VecDeque;
use sysy_runtime::RuntimeFn;

/// What a function does that its callers can observe. Memory here is memory visible to the
/// caller: globals and memory reached through pointer arguments; the function's own
/// `alloca`s do not count.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSummary {
    /// Reads some visible memory (globals or through parameters), itself or in callees.
    pub reads_memory: bool,
    /// Writes some visible memory.
    pub writes_memory: bool,
    /// Reads a global (constant or not), or memory through a pointer that is not traced to
    /// a parameter.
    pub reads_globals: bool,
    /// Writes a global, or memory through a pointer that is not traced to a parameter.
    pub writes_globals: bool,
    /// Every visible write goes through pointer parameters (true when there is none).
    pub writes_only_through_args: bool,
    /// For each parameter, whether memory reached through it is read (or it escapes).
    pub reads_param: Vec<bool>,
    /// For each parameter, whether memory reached through it is written (or it escapes).
    pub writes_param: Vec<bool>,
    /// Calls a runtime input/output function (`get*`, `put*`, `putf`, `starttime`,
    /// `stoptime`), itself or in callees.
    pub has_io: bool,
    /// Conservatively, whether a call may not come back: the function has a cycle in its
    /// control flow, is recursive, or calls a function that may not return.
    pub may_not_return: bool,
    /// The function can call itself, directly or through other functions.
    pub is_recursive: bool,
}

impl FunctionSummary {
    /// No visible reads or writes, no I/O, always returns: a call depends only on its
    /// arguments, and one whose result is unused can be removed.
    pub fn is_pure(&self) -> bool {
        !self.reads_memory && !self.writes_memory && !self.has_io && !self.may_not_return
    }

    /// No visible writes and no I/O (removing an unused call also needs `!may_not_return`).
    pub fn is_read_only(&self) -> bool {
        !self.writes_memory && !self.has_io
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModuleFacts {
    /// For each global, by `GlobalId`: never written after initialisation anywhere in the
    /// module (always true for a front-end `const`).
    pub constant_globals: Vec<bool>,
    /// For each function, by `FuncId`.
    pub summaries: Vec<FunctionSummary>,
    pub call_graph: CallGraph,
    /// For each global, its size in bytes.
    pub global_bytes: Vec<u32>,
    /// For each global scalar never written: the bits of its value.
    pub constant_scalars: Vec<Option<u32>>,
    /// For each function and parameter, by `FuncId` and position: the globals that every
    /// call passes an address into, when every call passes one (none for `main`, functions
    /// nobody calls, and parameters that are not pointers).
    pub param_globals: Vec<Vec<Option<Vec<GlobalId>>>>,
    /// For each function, by `FuncId`: the pairs `(p, q)`, `p < q`, of pointer parameters
    /// into which every call passes addresses in two different globals, so that within one
    /// call they never point into the same object (none for functions nobody calls).
    pub disjoint_params: Vec<Vec<(u32, u32)>>,
    /// For each global, by `GlobalId`: a front-end `const`, placed in read-only memory.
    pub read_only_globals: Vec<bool>,
    /// For each function and parameter, by `FuncId` and position: some call passes an
    /// address that may be in read-only memory (into a `const` global, of unknown origin,
    /// or the caller's own parameter that may be).
    pub read_only_params: Vec<Vec<bool>>,
}

impl ModuleFacts {
    pub fn new(m: &Module) -> ModuleFacts {
        let call_graph = CallGraph::new(m);
        let scans: Vec<Scan> = m.functions.iter().map(Scan::new).collect();
        let mut effects: Vec<Effects> = scans.iter().map(|s| s.effects.clone()).collect();
        for scc in call_graph.sccs() {
            propagate(scc, &call_graph, &scans, &mut effects);
        }
        let mut written = vec![false; m.globals.len()];
        for scan in &scans {
            for &g in &scan.written_globals {
                written[g.index()] = true;
            }
            for call in &scan.calls {
                let callee = &effects[call.callee.index()];
                for &(j, root) in &call.args {
                    if let Root::Global(g) = root {
                        if callee.writes_param.get(j).copied().unwrap_or(true) {
                            written[g.index()] = true;
                        }
                    }
                }
            }
        }
        let constant_globals = m
            .globals
            .iter()
            .zip(&written)
            .map(|(g, &w)| g.is_const || !w)
            .collect();
        let summaries = m
            .function_ids()
            .zip(effects)
            .map(|(f, e)| e.summary(call_graph.is_recursive(f)))
            .collect();
        let param_globals = param_globals(m, &scans);
        let disjoint_params = disjoint_params(m, &scans);
        let read_only_globals: Vec<bool> = m.globals.iter().map(|g| g.is_const).collect();
        let read_only_params = read_only_params(m, &scans, &read_only_globals);
        ModuleFacts {
            param_globals,
            disjoint_params,
            read_only_globals,
            read_only_params,
            summaries,
            call_graph,
            global_bytes: m.globals.iter().map(|g| g.bytes()).collect(),
            constant_scalars: m
                .globals
                .iter()
                .zip(&constant_globals)
                .map(|(g, &constant)| {
                    (constant && g.len == 1).then(|| g.init.first().map_or(0, |&(_, bits)| bits))
                })
                .collect(),
            constant_globals,
        }
    }

    pub fn summary(&self, f: FuncId) -> &FunctionSummary {
        &self.summaries[f.index()]
    }

    pub fn is_constant_global(&self, g: GlobalId) -> bool {
        self.constant_globals[g.index()]
    }

    /// Whether a store in function `func` to `object` cannot fault where a load from the
    /// same address did not: the object is not in read-only memory.
    pub fn is_writable(&self, func: FuncId, object: Object) -> bool {
        match object {
            Object::Global(g) => !self.read_only_globals[g.index()],
            Object::Param(p) => !self.read_only_params[func.index()][p as usize],
            Object::Alloca(_) => true,
            Object::Unknown => false,
        }
    }
}

/// For each function's parameters, the globals its calls pass addresses into, where every
/// call passes one.
fn param_globals(m: &Module, scans: &[Scan]) -> Vec<Vec<Option<Vec<GlobalId>>>> {
    let mut targets: Vec<Vec<Option<Vec<GlobalId>>>> = m
        .functions
        .iter()
        .map(|f| {
            f.params
                .iter()
                .map(|&t| (t == Type::Ptr).then(Vec::new))
                .collect()
        })
        .collect();
    let mut called = vec![false; m.functions.len()];
    for scan in scans {
        for call in &scan.calls {
            called[call.callee.index()] = true;
            for &(j, root) in &call.args {
                let Some(target) = targets[call.callee.index()].get_mut(j) else {
                    continue;
                };
                match (root, target.as_mut()) {
                    (Root::Global(g), Some(globals)) => {
                        if !globals.contains(&g) {
                            globals.push(g);
                        }
                    }
                    _ => *target = None,
                }
            }
        }
    }
    for (params, called) in targets.iter_mut().zip(called) {
        if !called {
            params.iter_mut().for_each(|t| *t = None);
        }
    }
    targets
}

/// For each function's parameters, whether a call may pass an address in read-only memory:
/// a `const` global's, or one of unknown origin, directly or through parameters of callers.
fn read_only_params(m: &Module, scans: &[Scan], read_only_globals: &[bool]) -> Vec<Vec<bool>> {
    let mut read_only: Vec<Vec<bool>> = m
        .functions
        .iter()
        .map(|f| vec![false; f.params.len()])
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (caller, scan) in scans.iter().enumerate() {
            for call in &scan.calls {
                for &(j, root) in &call.args {
                    let may = match root {
                        Root::Global(g) => read_only_globals[g.index()],
                        Root::Param(q) => read_only[caller][q as usize],
                        Root::Unknown => true,
                        Root::Local => false,
                    };
                    if let Some(flag) = read_only[call.callee.index()].get_mut(j) {
                        if may && !*flag {
                            *flag = true;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    read_only
}

/// For each function, the pairs of its pointer parameters that every call passes addresses in
/// two different globals.
fn disjoint_params(m: &Module, scans: &[Scan]) -> Vec<Vec<(u32, u32)>> {
    // `None` until the first call is seen: then every pair of pointer parameters that call
    // separates, narrowed by each later call.
    let mut pairs: Vec<Option<Vec<(u32, u32)>>> = vec![None; m.functions.len()];
    for scan in scans {
        for call in &scan.calls {
            let root = |j: usize| {
                call.args.iter().find_map(|&(k, root)| match root {
                    Root::Global(g) if k == j => Some(g),
                    _ => None,
                })
            };
            let separated = |&(p, q): &(u32, u32)| matches!((root(p as usize), root(q as usize)), (Some(a), Some(b)) if a != b);
            let known = pairs[call.callee.index()].get_or_insert_with(|| {
                let params = &m.functions[call.callee.index()].params;
                let pointers: Vec<u32> = (0..params.len() as u32)
                    .filter(|&j| params[j as usize] == Type::Ptr)
                    .collect();
                pointers
                    .iter()
                    .enumerate()
                    .flat_map(|(n, &p)| pointers[n + 1..].iter().map(move |&q| (p, q)))
                    .collect()
            });
            known.retain(separated);
        }
    }
    pairs.into_iter().map(Option::unwrap_or_default).collect()
}

/// Applies the calls of one component's functions until their summaries stop changing
/// (callees outside the component are final already); a function is looked at again only
/// when a callee inside the component has changed.
fn propagate(scc: &[FuncId], cg: &CallGraph, scans: &[Scan], effects: &mut [Effects]) {
    if scc.iter().any(|&f| cg.is_recursive(f)) {
        for &f in scc {
            effects[f.index()].may_not_return = true;
        }
    }
    let mut queued = vec![true; scc.len()];
    let mut queue: VecDeque<usize> = (0..scc.len()).collect();
    while let Some(k) = queue.pop_front() {
        queued[k] = false;
        let f = scc[k];
        let mut next = effects[f.index()].clone();
        for call in &scans[f.index()].calls {
            next.apply_call(&effects[call.callee.index()], &call.args);
        }
        if next == effects[f.index()] {
            continue;
        }
        effects[f.index()] = next;
        for &caller in cg.callers(f) {
            if let Ok(pos) = scc.binary_search(&caller) {
                if !queued[pos] {
                    queued[pos] = true;
                    queue.push_back(pos);
                }
            }
        }
    }
}

/// Where a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Root {
    Global(GlobalId),
    Param(u32),
    /// An `alloca` of the function itself.
    Local,
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Access {
    Read,
    Write,
    ReadWrite,
}

impl Access {
    fn reads(self) -> bool {
        self != Access::Write
    }

    fn writes(self) -> bool {
        self != Access::Read
    }
}

/// The effects being summarised, before the derived flags.
#[derive(Clone, Debug, PartialEq)]
struct Effects {
    reads_globals: bool,
    writes_globals: bool,
    reads_param: Vec<bool>,
    writes_param: Vec<bool>,
    has_io: bool,
    may_not_return: bool,
}

impl Effects {
    fn access(&mut self, root: Root, access: Access) {
        match root {
            Root::Global(_) | Root::Unknown => {
                self.reads_globals |= access.reads();
                self.writes_globals |= access.writes();
            }
            Root::Param(i) => {
                self.reads_param[i as usize] |= access.reads();
                self.writes_param[i as usize] |= access.writes();
            }
            Root::Local => {}
        }
    }

    /// Adds the effects of a call to a function with effects `callee`, given the roots of
    /// the pointer arguments by position.
    fn apply_call(&mut self, callee: &Effects, args: &[(usize, Root)]) {
        self.reads_globals |= callee.reads_globals;
        self.writes_globals |= callee.writes_globals;
        self.has_io |= callee.has_io;
        self.may_not_return |= callee.may_not_return;
        for &(j, root) in args {
            let reads = callee.reads_param.get(j).copied().unwrap_or(true);
            let writes = callee.writes_param.get(j).copied().unwrap_or(true);
            match (reads, writes) {
                (true, true) => self.access(root, Access::ReadWrite),
                (true, false) => self.access(root, Access::Read),
                (false, true) => self.access(root, Access::Write),
                (false, false) => {}
            }
        }
    }

    fn summary(self, is_recursive: bool) -> FunctionSummary {
        let through_params = |v: &[bool]| v.iter().any(|&x| x);
        FunctionSummary {
            reads_memory: self.reads_globals || through_params(&self.reads_param),
            writes_memory: self.writes_globals || through_params(&self.writes_param),
            reads_globals: self.reads_globals,
            writes_globals: self.writes_globals,
            writes_only_through_args: !self.writes_globals,
            reads_param: self.reads_param,
            writes_param: self.writes_param,
            has_io: self.has_io,
            may_not_return: self.may_not_return,
            is_recursive,
        }
    }
}

/// A call to a function of the module: the callee and the roots of its pointer arguments.
struct CallSite {
    callee: FuncId,
    args: Vec<(usize, Root)>,
}

/// What one function does by itself, before calls to the module's functions are applied.
struct Scan {
    effects: Effects,
    calls: Vec<CallSite>,
    /// Globals stored to, `memset`, copied to by `memcpy` or filled by the runtime, or escaping, here.
    written_globals: Vec<GlobalId>,
}

impl Scan {
    fn new(f: &Function) -> Scan {
        let params = f.params.len();
        let mut scan = Scan {
            effects: Effects {
                reads_globals: false,
                writes_globals: false,
                reads_param: vec![false; params],
                writes_param: vec![false; params],
                has_io: false,
                may_not_return: has_cycle(f),
            },
            calls: Vec::new(),
            written_globals: Vec::new(),
        };
        let mut roots = Roots {
            memo: vec![None; f.inst_capacity()],
            chain: Vec::new(),
        };
        for i in f.all_insts() {
            let kind = f.kind(i);
            if let InstKind::Call {
                callee: Callee::Function(g),
                args,
            } = kind
            {
                let args = pointer_args(f, args)
                    .map(|(j, v)| (j, roots.of(f, v)))
                    .collect();
                scan.calls.push(CallSite { callee: *g, args });
                continue;
            }
            if let InstKind::Call {
                callee: Callee::Runtime(_) | Callee::Putf(_),
                ..
            } = kind
            {
                scan.effects.has_io = true;
            }
            for (k, &v) in kind.operands().iter().enumerate() {
                if f.value_type(v) != Type::Ptr {
                    continue;
                }
                let root = roots.of(f, v);
                match pointer_use(kind, k) {
                    PointerUse::Access(access) => {
                        if let (Root::Global(g), true) = (root, access.writes()) {
                            scan.written_globals.push(g);
                        }
                        scan.effects.access(root, access);
                    }
                    PointerUse::Derive => {}
                    PointerUse::Escape => scan.escape(root),
                }
            }
        }
        scan
    }

    fn escape(&mut self, root: Root) {
        match root {
            Root::Global(g) => self.written_globals.push(g),
            Root::Param(i) => {
                self.effects.reads_param[i as usize] = true;
                self.effects.writes_param[i as usize] = true;
            }
            Root::Local | Root::Unknown => {}
        }
    }
}

/// What an instruction does with a pointer operand.
pub(crate) enum PointerUse {
    /// Reads or writes memory through it.
    Access(Access),
    /// Derives another pointer from it (a `gep` base), whose own uses are looked at.
    Derive,
    /// Lets it go where the analysis does not follow.
    Escape,
}

/// How operand `k` of `kind`, a pointer, is used. Calls to the module's functions are
/// handled apart; a pointer passed to a runtime function where it takes none counts as
/// read and written.
pub(crate) fn pointer_use(kind: &InstKind, k: usize) -> PointerUse {
    match (kind, k) {
        (InstKind::Load { .. }, 0) => PointerUse::Access(Access::Read),
        (InstKind::Store { .. }, 1) => PointerUse::Access(Access::Write),
        (InstKind::VLoad { .. }, 0) => PointerUse::Access(Access::Read),
        (InstKind::VStore { .. }, 1) => PointerUse::Access(Access::Write),
        (InstKind::Gep { .. }, 0) => PointerUse::Derive,
        (InstKind::Call { callee, .. }, k) => PointerUse::Access(match (callee, k) {
            (Callee::Runtime(RuntimeFn::GetArray | RuntimeFn::GetFArray), 0) => Access::Write,
            (Callee::Runtime(RuntimeFn::PutArray | RuntimeFn::PutFArray), 1) => Access::Read,
            (Callee::Memset | Callee::Memcpy, 0) => Access::Write,
            (Callee::Memcpy, 1) => Access::Read,
            _ => Access::ReadWrite,
        }),
        _ => PointerUse::Escape,
    }
}

fn pointer_args<'a>(
    f: &'a Function,
    args: &'a [Value],
) -> impl Iterator<Item = (usize, Value)> + 'a {
    args.iter()
        .copied()
        .enumerate()
        .filter(|&(_, v)| f.value_type(v) == Type::Ptr)
}

/// Whether the control flow reachable from the entry has a cycle: a depth-first search
/// meets a block that is still on its stack.
fn has_cycle(f: &Function) -> bool {
    const NEW: u8 = 0;
    const ON_STACK: u8 = 1;
    const DONE: u8 = 2;
    let Some(entry) = f.entry() else {
        return false;
    };
    let mut state = vec![NEW; f.block_capacity()];
    let mut stack = vec![(entry, 0usize)];
    state[entry.index()] = ON_STACK;
    while let Some((b, next)) = stack.last_mut() {
        let b = *b;
        match f.successors(b).get(*next) {
            Some(&s) => {
                *next += 1;
                match state[s.index()] {
                    NEW => {
                        state[s.index()] = ON_STACK;
                        stack.push((s, 0));
                    }
                    ON_STACK => return true,
                    _ => {}
                }
            }
            None => {
                state[b.index()] = DONE;
                stack.pop();
            }
        }
    }
    false
}

/// Roots of pointer values, memoised per instruction.
struct Roots {
    memo: Vec<Option<Root>>,
    chain: Vec<Inst>,
}

impl Roots {
    fn of(&mut self, f: &Function, v: Value) -> Root {
        match v {
            Value::Global(g) => Root::Global(g),
            Value::Param(p) => Root::Param(p),
            Value::Inst(i) => self.of_inst(f, i),
            _ => Root::Unknown,
        }
    }

    /// Follows `gep` bases up to a non-`gep`, then records the root for the whole chain. A
    /// chain found in progress again (a cycle of `gep`s in unreachable code) is unknown.
    fn of_inst(&mut self, f: &Function, inst: Inst) -> Root {
        let mut cur = inst;
        let root = loop {
            if let Some(r) = self.memo[cur.index()] {
                break r;
            }
            match f.kind(cur) {
                InstKind::Alloca { .. } => break Root::Local,
                InstKind::Gep { args, .. } => {
                    self.memo[cur.index()] = Some(Root::Unknown);
                    self.chain.push(cur);
                    match args[0] {
                        Value::Inst(base) => cur = base,
                        Value::Global(g) => break Root::Global(g),
                        Value::Param(p) => break Root::Param(p),
                        _ => break Root::Unknown,
                    }
                }
                _ => break Root::Unknown,
            }
        };
        for i in self.chain.drain(..) {
            self.memo[i.index()] = Some(root);
        }
        root
    }
}
