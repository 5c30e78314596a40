//! Where the module's globals lie, so that code can reach one from another: the globals of
//! each section (`.rodata` for `const`, `.bss` for all-zero, `.data` for the rest) follow
//! one another, smallest first (ties in declaration order), each at the next multiple of 8
//! bytes. `emit` writes them in this order, each after `.p2align 3`, so the distance between
//! two globals of one section is known here. A function holds the address of one global of
//! a section, its anchor there, in a register and reaches the scalars of the section at
//! small immediate offsets from it (`ldr r1, [r4, #12]`), where a `movw`, a `movt` and a
//! load took three instructions and a register per global; small globals first keep those
//! offsets within a load's reach.

use middle::ir::{GlobalId, Module};

/// The alignment of every global, in bytes.
pub const ALIGN: u32 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    Rodata,
    Data,
    Bss,
}

impl Section {
    pub const ALL: [Section; 3] = [Section::Rodata, Section::Data, Section::Bss];

    /// The assembler directive that switches to the section.
    pub fn directive(self) -> &'static str {
        match self {
            Section::Rodata => ".section .rodata",
            Section::Data => ".data",
            Section::Bss => ".bss",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

pub struct GlobalLayout {
    /// Each global's section and offset from the section's first global, by global index.
    places: Vec<(Section, u32)>,
    /// The globals in the order they are written.
    order: Vec<GlobalId>,
}

impl GlobalLayout {
    pub fn new(m: &Module) -> GlobalLayout {
        let mut order: Vec<GlobalId> = (0..m.globals.len() as u32).map(GlobalId).collect();
        order.sort_by_key(|&g| (section_of(m, g).index(), m.global(g).bytes(), g.0));
        let mut places = vec![(Section::Bss, 0); m.globals.len()];
        let mut ends = [0u32; 3];
        for &g in &order {
            let s = section_of(m, g);
            let at = ends[s.index()].next_multiple_of(ALIGN);
            places[g.index()] = (s, at);
            ends[s.index()] = at + m.global(g).bytes();
        }
        GlobalLayout { places, order }
    }

    /// The globals in the order they are written.
    pub fn order(&self) -> &[GlobalId] {
        &self.order
    }

    /// The section of `g` and its offset from the section's first global.
    pub fn place(&self, g: GlobalId) -> (Section, u32) {
        self.places[g.index()]
    }
}

pub fn section_of(m: &Module, g: GlobalId) -> Section {
    let global = m.global(g);
    if global.is_const {
        Section::Rodata
    } else if global.init.is_empty() {
        Section::Bss
    } else {
        Section::Data
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use middle::ir::{Global, Type};

    fn global(name: &str, len: u32, init: Vec<(u32, u32)>, is_const: bool) -> Global {
        Global {
            name: name.to_string(),
            elem: Type::I32,
            len,
            init,
            is_const,
        }
    }

    #[test]
    fn each_section_runs_smallest_first_at_multiples_of_eight() {
        let m = Module {
            globals: vec![
                global("big", 100, vec![], false),
                global("table", 3, vec![(0, 7)], true),
                global("count", 1, vec![], false),
                global("seed", 1, vec![(0, 5)], false),
                global("pair", 3, vec![], false),
                global("flag", 1, vec![], false),
            ],
            ..Module::default()
        };
        let layout = GlobalLayout::new(&m);
        let names: Vec<&str> = layout
            .order()
            .iter()
            .map(|&g| m.global(g).name.as_str())
            .collect();
        assert_eq!(names, ["table", "seed", "count", "flag", "pair", "big"]);
        let place = |name: &str| layout.place(m.find_global(name).unwrap());
        assert_eq!(place("count"), (Section::Bss, 0));
        assert_eq!(place("flag"), (Section::Bss, 8));
        assert_eq!(place("pair"), (Section::Bss, 16));
        assert_eq!(place("big"), (Section::Bss, 32));
        assert_eq!(place("seed"), (Section::Data, 0));
        assert_eq!(place("table"), (Section::Rodata, 0));
    }
}
