"""What every process of one prove run needs of the hot projection (pickled into each
worker with its WorkerSetup): the Redis URL, the generated module's text, and prove's
TTLs, which scale from the lease as the crash scenarios' leases do (a killed worker's
keys expire within seconds; the running TTL is RUNNING_LEASES leases, at least the one
lease the profile demands)."""

from __future__ import annotations

from dataclasses import dataclass

RUNNING_LEASES = 3
TERMINAL_LEASES = 2


@dataclass(frozen=True)
class HotSetup:
    url: str
    module_text: str  # redis/hot_state.py as rendered (or a variant of it)
    embedded: bool  # a throwaway server: losing everything may be a FLUSHALL
    lease_seconds: int

    @property
    def running_ttl(self) -> int:
        return RUNNING_LEASES * self.lease_seconds

    @property
    def terminal_ttl(self) -> int:
        return TERMINAL_LEASES * self.lease_seconds
