"""Read a profile file: YAML -> typed Profile, or a ProfileError at file:line:column."""

from __future__ import annotations

import difflib
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from agentddl.generator.errors import ProfileError
from agentddl.generator.profile.model import Profile

Mark = tuple[int, int]  # 1-based line, column
Path_ = tuple[str | int, ...]

# Keys people reach for that have a different name here.
RENAMED_KEYS = {
    "lock": "lock_strategy",
    "locking": "lock_strategy",
    "tenant": "tenancy",
    "postgres": "engine",
    "retention_days": "retention",
}


def load_profile(path: str | Path) -> Profile:
    """Load and validate a profile file; every mistake names file:line:column."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ProfileError(str(path), 1, 1, f"cannot read profile: {error.strerror}") from None
    return load_profile_text(text, str(path))


def load_default_profile() -> Profile:
    """The packaged schemas/default.yaml: from a wheel, an editable install or the repo."""
    text = files("agentddl.schemas").joinpath("default.yaml").read_text(encoding="utf-8")
    return load_profile_text(text, "schemas/default.yaml")


def load_profile_text(text: str, source: str = "<profile>") -> Profile:
    node = _compose(text, source)
    if not isinstance(node, yaml.MappingNode):
        raise ProfileError(source, *_mark(node), "expected a mapping of profile keys at top level")
    marks: dict[Path_, Mark] = {}
    key_marks: dict[Path_, Mark] = {}
    data = _to_python(node, (), marks, key_marks, source)
    try:
        return Profile.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise _located(first, marks, key_marks, source) from None


def locate_key(text: str, dotted: str) -> Mark:
    """Where `dotted` (e.g. `tenancy.column`) is written in a profile's text: its key,
    else the nearest section that is written, else the top (1, 1). For messages about a
    valid profile, so the text is known to parse."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    found: Mark = (1, 1)
    for part in dotted.split("."):
        if not isinstance(node, yaml.MappingNode):
            break
        pair = next(((k, v) for k, v in node.value if str(k.value) == part), None)
        if pair is None:
            break
        found, node = _mark(pair[0]), pair[1]
    return found


def _compose(text: str, source: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise ProfileError(source, line, column, f"invalid YAML: {error.problem}") from None


def _mark(node: yaml.Node | None) -> Mark:
    return (node.start_mark.line + 1, node.start_mark.column + 1) if node else (1, 1)


def _to_python(
    node: yaml.Node,
    path: Path_,
    marks: dict[Path_, Mark],
    key_marks: dict[Path_, Mark],
    source: str,
) -> Any:
    """Build plain data while remembering where each value and key stood."""
    marks[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in result:
                raise ProfileError(source, *_mark(key_node), f"duplicate key {key!r}")
            key_marks[(*path, key)] = _mark(key_node)
            result[key] = _to_python(value_node, (*path, key), marks, key_marks, source)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(item, (*path, i), marks, key_marks, source) for i, item in enumerate(node.value)]
    loader = yaml.SafeLoader("")
    return loader.construct_object(node, deep=True)


def _located(
    error: ErrorDetails, marks: dict[Path_, Mark], key_marks: dict[Path_, Mark], source: str
) -> ProfileError:
    path = tuple(error["loc"])
    dotted = ".".join(str(part) for part in path) or "profile"
    if error["type"] == "extra_forbidden":
        line, column = key_marks.get(path, marks.get(path, (1, 1)))
        return ProfileError(source, line, column, f"{dotted}: unknown key{_suggest(path)}")
    if error["type"] == "missing":
        line, column = marks.get(path[:-1], (1, 1))
        return ProfileError(source, line, column, f"{dotted}: required key is missing")
    line, column = marks.get(path, marks.get(path[:-1], (1, 1)))
    return ProfileError(source, line, column, f"{dotted}: {_expected(error)}")


def _expected(error: ErrorDetails) -> str:
    message = error["msg"].removeprefix("Value error, ").replace("Input should be", "expected")
    if error["type"] in ("literal_error", "enum"):
        return f"{message}, got {error['input']!r}"
    if error["type"].endswith("_type") or error["type"].endswith("_parsing"):
        return f"{message}, got {error['input']!r}"
    return message


def _suggest(path: Path_) -> str:
    key = str(path[-1])
    if key in RENAMED_KEYS:
        return f" (renamed: use {RENAMED_KEYS[key]!r})"
    fields = _fields_at(path[:-1])
    close = difflib.get_close_matches(key, fields, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (expected one of: {', '.join(fields)})"


def _fields_at(path: Path_) -> list[str]:
    model: type[BaseModel] = Profile
    for part in path:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return sorted(info.alias or name for name, info in model.model_fields.items())
