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
from agentddl.generator.profile.coherence import Contradiction, contradictions
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


MAX_NODES = 10_000  # a profile has about a hundred; aliases can multiply them endlessly


def load_profile(path: str | Path) -> Profile:
    """Load and validate a profile file; every mistake names file:line:column."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ProfileError(str(path), 1, 1, f"cannot read profile: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _end_of(data[: error.start].decode("utf-8"))
        byte = data[error.start]
        raise ProfileError(str(path), line, column, f"not UTF-8 text (byte 0x{byte:02x})") from None
    return load_profile_text(text, str(path))


def load_default_profile() -> Profile:
    """The packaged schemas/default.yaml: from a wheel, an editable install or the repo."""
    text = files("agentddl.schemas").joinpath("default.yaml").read_text(encoding="utf-8")
    return load_profile_text(text, "schemas/default.yaml")


def load_profile_text(text: str, source: str = "<profile>") -> Profile:
    marks: dict[Path_, Mark] = {}
    key_marks: dict[Path_, Mark] = {}
    try:
        node = _compose(text, source)
        if not isinstance(node, yaml.MappingNode):
            raise ProfileError(source, *_mark(node), "expected a mapping of profile keys at top level")
        data = _to_python(node, (), marks, key_marks, source)
    except RecursionError:  # both readers recurse: `[[[[...]]]]`, or `a: &x [*x]` (endless)
        raise ProfileError(
            source, 1, 1, "invalid YAML: nested too deeply (or an alias inside itself)"
        ) from None
    try:
        profile = Profile.model_validate(data, context={"coherence": "later"})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise _located(first, marks, key_marks, source) from None
    for contradiction in contradictions(profile):
        raise _contradiction(contradiction, marks, source)
    return profile


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
    except yaml.reader.ReaderError as error:  # a character YAML does not allow (binary data)
        line, column = _end_of(text[: error.position])
        character = f" (#x{error.character:04x})" if isinstance(error.character, int) else ""
        raise ProfileError(source, line, column, f"invalid YAML: {error.reason}{character}") from None


def _end_of(before: str) -> Mark:
    """The 1-based line and column just after `before` (the text up to a position)."""
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


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
    if len(marks) > MAX_NODES:  # every value has a path of its own, an alias's copies too
        where = key_marks.get(path[:1], (1, 1))  # the top-level key whose value grew so
        what = f"{path[0]}: expands" if path else "expands"
        raise ProfileError(source, *where, f"{what} to more than {MAX_NODES:,} values (aliases of aliases?)")
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
    return _scalar(node, source)


def _scalar(node: yaml.Node, source: str) -> Any:
    """A scalar's value; one its tag cannot read (`!!int abc`, `2020-02-30`, an unknown
    tag) is a ProfileError at the value."""
    try:
        return yaml.SafeLoader("").construct_object(node, deep=True)
    except yaml.MarkedYAMLError as error:
        raise ProfileError(source, *_mark(node), f"invalid YAML: {error.problem}") from None
    except (ValueError, KeyError, TypeError, OverflowError) as error:
        tag = "!!" + node.tag.removeprefix("tag:yaml.org,2002:")
        reason = str(error.args[0]) if error.args else type(error).__name__
        message = f"invalid YAML: {node.value!r} is not a valid {tag} ({reason})"
        raise ProfileError(source, *_mark(node), message) from None


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


def _contradiction(contradiction: Contradiction, marks: dict[Path_, Mark], source: str) -> ProfileError:
    """At the value of the key to change; if the file leaves it to its default, at the
    first key in the file that drives the contradiction, else at the section that would
    hold it (or the top of the file)."""
    keys: list[Path_] = [contradiction.path, *contradiction.drivers]
    found = next((key for key in keys if key in marks), None)
    path = found or contradiction.path
    while path and path not in marks:
        path = path[:-1]
    line, column = marks.get(path, (1, 1))
    return ProfileError(source, line, column, str(contradiction))


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
