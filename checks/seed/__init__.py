"""Synthetic rows at a profile's volume, loaded fast, for audit and trace."""
