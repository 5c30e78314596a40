//! The SysY front end: parsing (pest grammar to AST) and semantic checking (AST to the typed,
//! resolved tree in `hir`), with diagnostics that point at the source.

// pest is built without its `std` feature (see the workspace manifest), and the parser its
// derive generates then names the `alloc` crate.
extern crate alloc;

pub mod ast;
mod ast_builder;
pub mod check;
pub mod consteval;
pub mod diagnostic;
pub mod hir;
pub mod literal;
mod literal_list;
mod nesting;
pub mod parser;
pub mod source;
mod syntax_error;
pub mod types;

pub use diagnostic::Diagnostic;
pub use source::SourceFile;

/// Parses and checks a whole program.
pub fn compile(file: &SourceFile) -> Result<hir::Program, Vec<Diagnostic>> {
    let unit = parser::parse(&file.text)?;
    check::check(file, &unit)
}
