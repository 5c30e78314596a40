//! A module: global variables, `putf` format strings and functions.

use super::entities::{FuncId, GlobalId};
use super::function::Function;
use super::types::Type;

/// A global array (a scalar is an array of one element) of `i32` or `f32`.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    pub elem: Type,
    pub len: u32,
    /// Element index and bits of every element that is not zero, ascending.
    pub init: Vec<(u32, u32)>,
    /// Never written after initialisation.
    pub is_const: bool,
}

impl Global {
    pub fn bytes(&self) -> u32 {
        self.len * self.elem.bytes()
    }

    /// The initial bits of element `index`.
    pub fn initial(&self, index: u32) -> u32 {
        match self.init.binary_search_by_key(&index, |(i, _)| *i) {
            Ok(pos) => self.init[pos].1,
            Err(_) => 0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub globals: Vec<Global>,
    /// Format strings of `putf` calls, as bytes.
    pub strings: Vec<Vec<u8>>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn global(&self, g: GlobalId) -> &Global {
        &self.globals[g.index()]
    }

    pub fn function(&self, f: FuncId) -> &Function {
        &self.functions[f.index()]
    }

    pub fn function_mut(&mut self, f: FuncId) -> &mut Function {
        &mut self.functions[f.index()]
    }

    pub fn function_ids(&self) -> impl Iterator<Item = FuncId> {
        (0..self.functions.len() as u32).map(FuncId)
    }

    pub fn find_function(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    pub fn find_global(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .position(|g| g.name == name)
            .map(|i| GlobalId(i as u32))
    }

    /// The index of `s` in the string table, adding it if new.
    pub fn intern_string(&mut self, s: &[u8]) -> u32 {
        match self.strings.iter().position(|x| x == s) {
            Some(i) => i as u32,
            None => {
                self.strings.push(s.to_vec());
                self.strings.len() as u32 - 1
            }
        }
    }
}
