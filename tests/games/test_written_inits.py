"""The dataclasses whose ``__init__`` is written out (``@dataclass(init=False)``: the compiled
build compiles a written method, while the one dataclasses generates runs interpreted; see
docs/compiled.md). A written ``__init__`` must be the one dataclasses would write: every field a
parameter, in field order, each stored unchanged. A field added later and forgotten here would
otherwise leave the attribute unset, or set from the wrong argument, in both builds alike."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _written_inits() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for folder in ("games", "verifier"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and any(
                        isinstance(d, ast.Call) and getattr(d.func, "id", None) == "dataclass"
                        and any(k.arg == "init" and getattr(k.value, "value", True) is False
                                for k in d.keywords)
                        for d in node.decorator_list):
                    found.append((f"{path.relative_to(ROOT)}:{node.name}", node))
    return found


WRITTEN = _written_inits()


def test_the_written_inits_are_found() -> None:
    # the three of issue 20; the test below must not pass by finding none
    names = {name.rsplit(":", 1)[1] for name, _ in WRITTEN}
    assert {"ArcomageState", "Creature", "WyrdState"} <= names


@pytest.mark.parametrize(("name", "cls"), WRITTEN, ids=[name for name, _ in WRITTEN])
def test_a_written_init_is_the_one_dataclasses_would_write(name: str, cls: ast.ClassDef) -> None:
    fields = [node.target.id for node in cls.body
              if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
              and "ClassVar" not in ast.unparse(node.annotation)]
    init = next(node for node in cls.body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    assert [arg.arg for arg in init.args.args[1:]] == fields, f"{name}: parameters vs fields"
    stored = {(target.attr, statement.value.id) for statement in init.body
              if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name)
              for target in statement.targets
              if isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "self"}
    assert stored == {(field, field) for field in fields}, f"{name}: each field stored as given"
    assert len(init.body) == len(fields), f"{name}: an __init__ doing more than storing fields"
