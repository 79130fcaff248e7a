"""Every command the CLI has is listed where a reader looks for it: a row of the docs
index's command table, an entry of the site's navigation, and a page of its own."""

from __future__ import annotations

import re

import yaml
from profiles import ROOT

from agentddl.checks.cli.main import COMMANDS


def test_the_docs_index_lists_every_command() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| \[`agentddl ([a-z-]+)`\]\(commands/\1\.md\)", index, re.M))
    assert listed == set(COMMANDS)


def test_every_command_has_a_page_in_the_site_navigation() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    commands = next(entry["Commands"] for entry in config["nav"] if "Commands" in entry)
    in_nav = {page for entry in commands for page in entry.values()}
    assert in_nav == {f"commands/{name}.md" for name in COMMANDS}
    assert all((ROOT / "docs" / page).is_file() for page in in_nav)
