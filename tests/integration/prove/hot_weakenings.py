"""The hot projection's guards taken away, one at a time, in the text of the generated
redis/hot_state.py (the way a hand edit of it would): each hot scenario must report its
weakening broken, for the right reason. An edit names the exact text it removes or
replaces; if that text is not in the module (the generator changed), applying it fails
instead of silently proving an intact module "broken"."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HotWeakening:
    name: str
    scenario: str
    expect: tuple[str, ...]  # counts of which one at least must be > 0
    edits: tuple[tuple[str, str], ...]  # (old text, new text), every occurrence

    def apply(self, module: str) -> str:
        for old, new in self.edits:
            if old not in module:
                raise AssertionError(f"weakening {self.name}: {old!r} is not in redis/hot_state.py")
            module = module.replace(old, new)
        return module


NO_FENCE = HotWeakening(
    "fenced_update without the fencing-token comparison",
    "hot_stale_writer",
    ("stale_writes_accepted", "newer_projection_damaged"),
    (("if held_fence and fence < held_fence then\n  return {0, 'stale'}\nend\n", ""),),
)
NO_TTL = HotWeakening(
    "scripts without EXPIRE, the lease key without EX",
    "hot_expiry",
    ("keys_without_ttl", "hot_states_outlived", "hot_leases_outlived"),
    (
        ("redis.call('EXPIRE', KEYS[1], ARGV[10])\n", ""),
        ("redis.call('EXPIRE', KEYS[1], ARGV[3])\n", ""),
        (", 'EX', ARGV[11])", ")"),
        (", 'EX', ARGV[4])", ")"),
    ),
)
MISSING_IS_LOST = HotWeakening(
    "a projection Redis lost taken for a lost lease",
    "hot_flush",
    ("leases_lost", "not_rebuilt"),
    (("        if outcome == MISSING:\n            outcome = self._publish()\n", ""),),
)
RARE_RENEWAL = HotWeakening(
    "the durable lease renewed every two leases",
    "hot_flush",
    ("leases_lapsed", "leases_lost"),
    (("    return lease_seconds / 3\n", "    return lease_seconds * 2\n"),),
)
REDIS_FIRST = HotWeakening(
    "view answers from Redis when the projection names the caller's tenant",
    "hot_tenant_read",
    ("hot_reads_leaked", "mismatched_projection_served"),
    (
        (
            "        row = load_run()\n        if row is None or",
            "        cached = self.read(run_id)\n"
            "        if cached.get(\"tenant\") == str(tenant):\n"
            "            return {\"run_id\": run_id, \"status\": cached.get(\"status\"), \"hot\": cached}\n"
            "        row = load_run()\n        if row is None or",
        ),
    ),
)
HOT_WEAKENINGS = (NO_FENCE, NO_TTL, MISSING_IS_LOST, RARE_RENEWAL, REDIS_FIRST)
