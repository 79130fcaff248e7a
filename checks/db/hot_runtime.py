"""The generated redis/hot_state.py, loaded as a team's runtime imports it.

prove runs the rendered module itself (or a variant of its text), not a copy of its
logic, the way it runs queries.sql through aiosql: what is proven is what a worker and
an API would run.
"""

from __future__ import annotations

import hashlib
import sys
from types import ModuleType

from agentddl.generator.model import SchemaModel
from agentddl.generator.render.hot import render_module

MODULE_FILE = "redis/hot_state.py"


def hot_module_text(model: SchemaModel) -> str:
    return render_module(model)


def load_hot_module(model: SchemaModel, text: str | None = None) -> ModuleType:
    """The module of `text` (default: the model's rendered redis/hot_state.py). It is
    registered in sys.modules under a name of its own text's hash (its dataclasses need
    their module there), so two variants never meet."""
    source = hot_module_text(model) if text is None else text
    name = f"agentddl_hot_state_{hashlib.sha1(source.encode()).hexdigest()[:12]}"
    found = sys.modules.get(name)
    if found is not None:
        return found
    module = ModuleType(name)
    module.__file__ = MODULE_FILE
    sys.modules[name] = module
    try:
        exec(compile(source, MODULE_FILE, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
