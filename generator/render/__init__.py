"""Renderers: SchemaModel -> text artifacts. Pure functions returning strings."""
