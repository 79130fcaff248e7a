"""Static migration linter: pglast AST rules that know the target version and runner."""
