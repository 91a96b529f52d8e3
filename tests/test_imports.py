"""printshop's modules form layers: no module imports, directly or through others, one that
imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "printshop"


def module_name(path: Path) -> str:
    """Return the dotted name of a module file inside the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Return the printshop modules a file imports anywhere, functions included."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            # "from . import cache" names a module; "from .bom import plan" names its module.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    """Return each printshop module and the printshop modules it imports."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports_of(path, set(files)) for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one import cycle as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            # A package's __init__ imported by its own submodules is how Python loads them.
            if node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    assert "printshop.write.contents" in graph["printshop.build"]  # imported inside combine()
    assert "printshop.write.pdf" in graph["printshop.build"]


def test_the_cycle_finder_finds_a_loop():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_printshop_has_no_import_loop():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import loop: " + " -> ".join(cycle)


# The stages in pipeline order: a module imports only from its own stage or one before it.
STAGES = ["files", "run", "load", "draw", "layout", "components", "write", "check", "games",
          "export", "build", "validate", "watch", "scaffold", "serve", "cli"]


def stage_of(module: str) -> int:
    """Return the rank of a printshop module's stage (its sub-package, or the module on top)."""
    parts = module.split(".")
    return STAGES.index(parts[1]) if len(parts) > 1 else len(STAGES)


def test_every_module_belongs_to_a_stage():
    strays = [m for m in import_graph() if m != "printshop" and m.split(".")[1] not in STAGES]
    assert not strays, f"modules outside the stages {STAGES}: {strays}"


def test_no_import_runs_upward():
    upward = sorted(f"{m} imports {t}" for m, targets in import_graph().items() if m != "printshop"
                    for t in targets if t != "printshop" and stage_of(t) > stage_of(m))
    assert not upward, "imports that run against the pipeline:\n" + "\n".join(upward)
