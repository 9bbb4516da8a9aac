"""Static checks on a tutorial script, used to flag it in the manifest.

Two things make a script unable to show PyTorch compatibility on its own: it may use names
the tutorial never defines (``model = ...`` then ``model.eval()``), or it may demand a GPU
outside any ``torch.cuda.is_available()`` guard. Both are read from the source, never run.
"""

from __future__ import annotations

import ast
import builtins
import symtable

_BUILTINS = frozenset(dir(builtins))


def undefined_names(source: str) -> list[str]:
    """Names the script reads but never defines, sorted.

    A name whose only definitions are ``name = ...`` (the Ellipsis placeholder) counts as
    undefined: the tutorial means "some object you should have made here".
    """
    tree = ast.parse(source)
    table = symtable.symtable(source, "<script>", "exec")
    module_defined = _defined_at_module_level(table) - _placeholder_names(tree)
    missing = {
        name
        for name in _global_reads(table)
        if name not in module_defined and name not in _BUILTINS
    }
    return sorted(missing | (_placeholder_names(tree) & _module_reads(table)))


def _defined_at_module_level(table: symtable.SymbolTable) -> set[str]:
    """Names bound at module level by assignment, import, def, class, for or with."""
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}


def _module_reads(table: symtable.SymbolTable) -> set[str]:
    """Names read at module level."""
    return {s.get_name() for s in table.get_symbols() if s.is_referenced()}


def _global_reads(table: symtable.SymbolTable) -> set[str]:
    """Names read at module level or read as globals inside any nested scope."""
    return _module_reads(table) | _nested_global_reads(table)


def _nested_global_reads(table: symtable.SymbolTable) -> set[str]:
    """Global reads in every scope nested below ``table`` (functions, classes, lambdas)."""
    names: set[str] = set()
    for child in table.get_children():
        names |= {s.get_name() for s in child.get_symbols() if s.is_referenced() and s.is_global()}
        names |= _nested_global_reads(child)
    return names


def _placeholder_names(tree: ast.Module) -> set[str]:
    """Names whose every module-level assignment is the Ellipsis placeholder ``...``."""
    placeholder: set[str] = set()
    real: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            is_placeholder = isinstance(node.value, ast.Constant) and node.value.value is Ellipsis
            for target in node.targets:
                if isinstance(target, ast.Name):
                    (placeholder if is_placeholder else real).add(target.id)
    return placeholder - real


def needs_cuda(source: str) -> bool:
    """True when the script asks for a CUDA device outside a ``cuda.is_available()`` guard."""
    return _CudaUseFinder().finds_unguarded_use(ast.parse(source))


class _CudaUseFinder(ast.NodeVisitor):
    """Walks a script, tracking whether the current node sits under an availability guard."""

    def __init__(self) -> None:
        self._guard_depth = 0
        self._found = False

    def finds_unguarded_use(self, tree: ast.AST) -> bool:
        self.visit(tree)
        return self._found

    def visit_If(self, node: ast.If) -> None:
        self._visit_guarded(node.test, node.body, node.orelse)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._visit_guarded(node.test, [node.body], [node.orelse])

    def _visit_guarded(self, test: ast.expr, body: list, orelse: list) -> None:
        self.visit(test)
        guarded = _is_cuda_availability_check(test)
        self._guard_depth += guarded
        for child in body:
            self.visit(child)
        self._guard_depth -= guarded
        for child in orelse:
            self.visit(child)

    def visit_Call(self, node: ast.Call) -> None:
        if not self._guard_depth and _demands_cuda(node):
            self._found = True
        self.generic_visit(node)


def _is_cuda_availability_check(test: ast.expr) -> bool:
    """True when the condition calls ``<something>.cuda.is_available()``."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "is_available"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "cuda"
        for node in ast.walk(test)
    )


def _demands_cuda(call: ast.Call) -> bool:
    """``x.cuda()``, ``device="cuda"``, ``torch.device("cuda")`` or ``x.to("cuda")``."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "cuda":
        return True
    if any(k.arg == "device" and _is_cuda_string(k.value) for k in call.keywords):
        return True
    names_device = isinstance(func, ast.Attribute) and func.attr in ("device", "to")
    return names_device and any(_is_cuda_string(arg) for arg in call.args)


def _is_cuda_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("cuda")
