"""The lease prove's tests run with, from this machine's speed measured just before.

prove derives every wait of its own from the lease (a stall is 3 leases and 3 s, hot_flush
renews a lease of four every third of it and checks a projection a step later), so a test
needs a lease no healthy worker outlasts on this machine as it runs now: the tests used a
fixed 1 s, which a loaded machine's stalls can outlast (a healthy holder's lease lapses,
and hot_flush counts that against it). Here the lease is LEASE_IN_PROBES times the
slowest of PROBES small write transactions (a step's writes in miniature, its slowest
one left out as an outlier) timed on the test's server just before the run, and at
least 1 s: on an idle 2-core machine they take under 1 ms, the slowest a few ms; with
both cores busy (stress-ng --cpu 2 and another test suite, load 14) up to ~45 ms, so
the lease stays 1 s where the suite is known to hold, and grows where a step is slower.
"""

from __future__ import annotations

import math
import time

from agentddl.checks.db import PostgresServer, connect

PROBES = 20
LEASE_IN_PROBES = 20


def lease_seconds(server: PostgresServer) -> int:
    seconds: list[float] = []
    with connect(server.admin_dsn) as conn:
        conn.execute("CREATE TEMP TABLE lease_probe (n int PRIMARY KEY, at timestamptz)")
        for n in range(PROBES):
            start = time.perf_counter()
            with conn.transaction():
                conn.execute("INSERT INTO lease_probe VALUES (%s, now())", [n])
                conn.execute("UPDATE lease_probe SET at = clock_timestamp() WHERE n = %s", [n])
            seconds.append(time.perf_counter() - start)
    slowest = sorted(seconds)[-2]
    return max(1, math.ceil(LEASE_IN_PROBES * slowest))
