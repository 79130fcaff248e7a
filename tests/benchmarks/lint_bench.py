"""Benchmark (not a test): `python tests/benchmarks/lint_bench.py [--files 1000]` (`make bench-lint`).

Generates a corpus of realistic migration files in a temporary folder, lints them all
in this process and, when `squawk` (PyPI squawk-cli) is on PATH or beside this Python,
runs it on the same files in the same run; prints both times and the ratio.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lint_squawk import squawk_binary

from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig

TABLES = ("runs", "attempts", "checkpoints", "events", "operations", "outbox", "tenants")
COLUMNS = ("status", "wake_at", "priority", "trace_id", "lease_expires_at", "tenant_id")
SNIPPETS = (
    "SET lock_timeout = '2s';",
    "SET statement_timeout = '5min';",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_{t}_{c} ON agent.{t} ({c});",
    "CREATE INDEX idx_{t}_{c}_{n} ON agent.{t} ({c}) WHERE {c} IS NOT NULL;",
    "ALTER TABLE agent.{t} ADD COLUMN {c}_{n} text;",
    "ALTER TABLE agent.{t} ADD COLUMN {c}_{n} bigint NOT NULL DEFAULT 0;",
    "ALTER TABLE agent.{t} ADD CONSTRAINT fk_{t}_{n} FOREIGN KEY (run_id)"
    " REFERENCES agent.runs (id) NOT VALID;",
    "ALTER TABLE agent.{t} VALIDATE CONSTRAINT fk_{t}_{n};",
    "ALTER TABLE agent.{t} ADD CONSTRAINT ck_{t}_{n} CHECK ({c} IS NOT NULL) NOT VALID;",
    "ALTER TABLE agent.{t} ALTER COLUMN {c} SET NOT NULL;",
    "ALTER TABLE agent.{t} ALTER COLUMN {c} TYPE varchar(200);",
    "COMMENT ON TABLE agent.{t} IS 'durable {t} (rev {n})';",
    "DROP INDEX CONCURRENTLY IF EXISTS agent.idx_{t}_{c}_old;",
    "UPDATE agent.{t} SET {c} = NULL WHERE id IN (SELECT id FROM agent.{t} WHERE {c} = '' LIMIT 5000);",
    "CREATE TABLE agent.{t}_{n} (\n    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n"
    "    run_id bigint NOT NULL,\n    payload jsonb NOT NULL DEFAULT '{{}}',\n"
    "    created_at timestamptz NOT NULL DEFAULT now()\n);",
    "CREATE INDEX idx_{t}_{n}_run ON agent.{t}_{n} (run_id);",
    "DO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 's{n}') THEN\n"
    "    CREATE TYPE agent.s{n} AS ENUM ('a', 'b');\n  END IF;\nEND\n$$;",
    "BEGIN;\nALTER TABLE agent.{t} RENAME COLUMN {c} TO {c}_v{n};\nCOMMIT;",
)


def write_corpus(folder: Path, count: int, seed: int = 7) -> list[Path]:
    """`count` migration files of 8-25 statements each, deterministic for a seed."""
    generator = random.Random(seed)
    paths = []
    for number in range(count):
        lines = [f"-- migration {number:04d}: generated for the lint benchmark"]
        for _ in range(generator.randint(8, 25)):
            snippet = generator.choice(SNIPPETS)
            lines.append(
                snippet.format(
                    t=generator.choice(TABLES),
                    c=generator.choice(COLUMNS),
                    n=generator.randint(1, 999),
                )
            )
        path = folder / f"{number:04d}_migration.sql"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def time_agentddl(folder: Path) -> tuple[float, int]:
    start = time.perf_counter()
    result = run(LintRequest([str(folder)], config=LintConfig()))
    return time.perf_counter() - start, len(result.findings)


def time_squawk(binary: str, paths: list[Path]) -> float:
    start = time.perf_counter()
    subprocess.run([binary, *map(str, paths)], capture_output=True, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/benchmarks/lint_bench.py")
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentddl-bench-") as temp:
        paths = write_corpus(Path(temp), args.files)
        statements = sum(p.read_text().count(";") for p in paths)
        elapsed, findings = time_agentddl(Path(temp))
        print(
            f"agentddl lint: {len(paths)} files, ~{statements} statements, "
            f"{findings} findings in {elapsed:.2f} s ({len(paths) / elapsed:.0f} files/s)"
        )
        binary = squawk_binary()
        if binary is None:
            print("squawk: not installed (pip install squawk-cli); no comparison")
            return 0
        squawk = time_squawk(binary, paths)
        print(f"squawk:        {len(paths)} files in {squawk:.2f} s")
        print(f"ratio agentddl/squawk: {elapsed / squawk:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
