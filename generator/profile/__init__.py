"""The profile: a short YAML file that says what schema a team needs."""

from agentddl.generator.profile.load import load_default_profile, load_profile, load_profile_text
from agentddl.generator.profile.model import LockStrategy, Profile

__all__ = ["LockStrategy", "Profile", "load_default_profile", "load_profile", "load_profile_text"]
