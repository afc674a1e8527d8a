"""The import graph read from the source itself (ast), imports under TYPE_CHECKING and
inside functions included: import-linter leaves the former out (pyproject.toml), and a
circle there still means two modules that cannot be read one without the other.

Also each package's "May import:" line (its __init__'s second line) against the
imports its modules really make, and against the import-linter contracts."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "client"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(CLIENT.rglob("*.py"))}


def _owner(name: str) -> str | None:
    """The client module that `name` is or lives in (None: outside the client)."""
    modules = _modules()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(module: str, path: Path) -> Iterator[str]:
    """Every name `module` imports (absolute), wherever the import statement is: for
    `from a import b`, a.b when it is a module, else a (as grimp reads them)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in _modules() else base


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """module -> the client modules it imports (a package's __init__ counts as a module)."""
    graph = {}
    for module, path in _modules().items():
        owners = {_owner(name) for name in _imported_names(module, path)}
        graph[module] = frozenset(o for o in owners if o is not None and o != module)
    return graph


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """One circle per strongly connected component (Tarjan), as a path a -> ... -> a."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while (member := stack.pop()) != node:
                component.append(member)
            component.append(node)
            if len(component) > 1:
                found.append(_circle(graph, set(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _circle(graph: dict[str, frozenset[str]], component: set[str]) -> list[str]:
    """The shortest way round from the component's first module back to it."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node] & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no way round {sorted(component)}")


def test_no_module_imports_itself_round_a_circle() -> None:
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_a_circle_is_found_and_named() -> None:
    """The check itself: a circle through three modules is named in its order."""
    graph = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a", "d"}),
        "d": frozenset(),
    }
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({**graph, "c": frozenset({"d"})}) == []


def test_the_graph_sees_imports_under_type_checking_and_in_functions() -> None:
    graph = import_graph()
    # client/ui/shell/app.py imports the controllers inside its methods only, and
    # names Tachy only for the checker.
    assert "client.ui.chat.chat_page" in graph["client.ui.shell.app"]
    assert "client.services.tachy" in graph["client.ui.shell.app"]


def test_no_area_of_the_window_imports_the_shell() -> None:
    """The shell wires the areas together; an area takes its own widgets, Tachy and
    the controllers under it, never the app (not even for the checker)."""
    found = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if module.startswith("client.ui.") and not module.startswith("client.ui.shell")
        for target in targets
        if target.startswith("client.ui.shell")
    ]
    assert not found, "\n".join(found)


# --- "May import:" -------------------------------------------------------------------
OUTSIDE = {"client.lab", "client.cli"}  # neither is a layer of the app's own stack


def may_import_line(package: Path) -> str:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    lines = (doc or "").splitlines()
    line = lines[1] if len(lines) > 1 else ""
    assert line.startswith("May import: "), f"{package.relative_to(ROOT)}: no May import line"
    for more in lines[2:]:  # a long line wraps onto the next, up to a blank one
        if not more.strip():
            break
        line += " " + more.strip()
    return line.removeprefix("May import: ")


TOP = {"core", "backends", "store", "services", "ui", "lab", "cli"}  # client's packages


def allowed_prefixes(package: str, line: str) -> set[str] | None:
    """The modules a "May import:" line names (None: anything of the client).

    The names come first, comma-separated, up to the first ";" (after it, and in
    parentheses, the line explains). A name is read as written: `client.x` from the
    top; `ui.chat` or `core` as a package of the client; a bare word naming a sibling
    (`servers` in a services area) as that sibling; anything else (`httpx`) as a
    library. "nothing" names none of the client; "anything" allows all of it."""
    names = re.sub(r"\([^)]*\)", "", line).split(";")[0].strip().rstrip(".")
    if names.startswith("anything"):
        return None
    parent = package.rpartition(".")[0]
    allowed = set()
    for name in (word.strip() for word in names.split(",")):
        if name.startswith("nothing") or not name:
            continue
        if name.startswith("client."):
            allowed.add(name)
        elif _owner(f"{parent}.{name}") == f"{parent}.{name}":
            allowed.add(f"{parent}.{name}")
        elif name.split(".")[0] in TOP:
            allowed.add(f"client.{name}")
        else:
            allowed.add(name)  # a library
    return allowed


def _packages() -> list[Path]:
    return sorted(init.parent for init in CLIENT.rglob("__init__.py") if init.parent != CLIENT)


def _within(module: str, prefixes: set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_each_may_import_line_says_what_the_package_imports() -> None:
    """Every client module a package's modules import is its own, one of its
    subpackages', or named on its "May import:" line (a subpackage's own line holds for
    it). The window's packages may name the `ui` they are in as their siblings."""
    wrong = []
    graph = import_graph()
    for folder in _packages():
        package = _module_name(folder / "__init__.py")
        allowed = allowed_prefixes(package, may_import_line(folder))
        if allowed is None:
            continue
        subpackages = {_module_name(p / "__init__.py") for p in _packages() if p.parent == folder}
        own = [m for m in graph if m.rpartition(".")[0] == package or m == package]
        own = [m for m in own if m not in subpackages]
        for module in own:
            for target in sorted(graph[module]):
                if target == "client" or _within(target, {package} | allowed):
                    continue  # (the client's own package holds only its version)
                wrong.append(f"{module} imports {target}: not on {package}'s May import line")
    assert not wrong, "\n".join(wrong)


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def test_no_may_import_line_allows_what_a_contract_forbids() -> None:
    """The lines agree with the import-linter contracts: a package may not name a
    module a forbidden contract keeps from it, nor a layer above its own."""
    wrong = []
    for folder in _packages():
        package = _module_name(folder / "__init__.py")
        allowed = allowed_prefixes(package, may_import_line(folder)) or set()
        for forbidden_by, target in _forbidden(package):
            named = [a for a in allowed if _within(a, {target})]
            wrong += [f"{package} names {a}: {forbidden_by}" for a in named]
    assert not wrong, "\n".join(wrong)


def _forbidden(package: str) -> Iterator[tuple[str, str]]:
    """(contract, module) pairs the contracts keep `package` from importing."""
    for contract in _contracts():
        name = str(contract["name"])
        if contract["type"] == "forbidden":
            if _within(package, set(contract["source_modules"])):
                yield from ((name, module) for module in contract["forbidden_modules"])
        elif contract["type"] == "layers":
            yield from ((name, above) for above in _layers_above(contract, package))


def _layers_above(contract: dict[str, Any], package: str) -> Iterator[str]:
    for container in contract.get("containers", [""]):
        prefix = f"{container}." if container else ""
        layers = [
            [f"{prefix}{name.strip()}" for name in layer.split("|")] for layer in contract["layers"]
        ]
        mine = [i for i, layer in enumerate(layers) if _within(package, set(layer))]
        if not mine:
            continue
        for i, layer in enumerate(layers):
            for sibling in layer:
                # above it, or beside it in an independent layer (a | b)
                if i < mine[0] or (i == mine[0] and not _within(package, {sibling})):
                    yield sibling


def test_the_lines_are_read_as_written() -> None:
    """The check itself: how a line's names are read, and what the contracts forbid."""
    services = allowed_prefixes("client.services.chat", "cascade, core, httpx (x); ui")
    assert services == {"client.services.cascade", "client.core", "httpx"}
    assert allowed_prefixes("client.ui.hud", "ui.chat, client.services.") == {
        "client.ui.chat",
        "client.services",
    }
    assert allowed_prefixes("client.cli", "anything of client") is None
    assert allowed_prefixes("client.core", "nothing of client; no Qt") == set()
    chat = {module for _, module in _forbidden("client.services.chat")}
    assert {"client.ui", "httpx", "client.services.warming", "client.services.race"} <= chat
    assert "client.services.cascade" not in chat  # under it
    hud = {module for _, module in _forbidden("client.ui.hud.tabs")}
    assert {"client.ui.warming", "client.ui.shell", "client.store"} <= hud
    assert "client.ui.servers" not in hud
