"""Generic verify rules: catalog hygiene any PostgreSQL schema should keep."""
