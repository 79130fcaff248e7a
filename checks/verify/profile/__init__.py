"""Profile verify rules: the live schema holds what the profile's model declares."""
