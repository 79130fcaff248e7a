"""Export the profile's JSON Schema for editors: `python -m agentddl.generator.profile.jsonschema`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agentddl.generator.profile.model import Profile

SCHEMA_ID = "https://agentddl.dev/schemas/profile.schema.json"


def profile_json_schema() -> str:
    schema = Profile.model_json_schema(by_alias=True, mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("schemas/profile.schema.json"))
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = profile_json_schema()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run `make generate`", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
