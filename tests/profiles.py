"""Shared test helpers for profiles: the repo's example profiles and variants of them."""

from __future__ import annotations

from pathlib import Path

from agentddl.generator.profile import LockStrategy, Profile, load_profile
from agentddl.generator.profile.model import Engine

ROOT = Path(__file__).resolve().parent.parent
PROFILE_FILES = sorted(
    [ROOT / "schemas" / "default.yaml", *(ROOT / "schemas" / "examples").glob("*.yaml")]
)


def example_profiles() -> dict[str, Profile]:
    return {path.stem: load_profile(path) for path in PROFILE_FILES}


def with_version(profile: Profile, version: int) -> Profile:
    return profile.model_copy(update={"engine": Engine(version=version)})


def with_strategy(profile: Profile, strategy: LockStrategy) -> Profile:
    return profile.model_copy(update={"lock_strategy": strategy})
