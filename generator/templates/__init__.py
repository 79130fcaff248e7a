"""PL/pgSQL and other long SQL bodies as package data (*.sql), filled in by
agentddl.generator.sqltemplate."""
