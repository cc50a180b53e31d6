"""The reference shares no code with the machine or the harness."""
import ast
import os

import reference

FORBIDDEN = ("eemu_ext", "harness")


def _imports(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                yield node.lineno, node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            if node.args and isinstance(node.args[0], ast.Constant):
                yield node.lineno, str(node.args[0].value)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                yield node.lineno, str(node.args[0].value)


def test_no_reference_module_imports_eemu_ext_or_harness():
    root = os.path.dirname(reference.__file__)
    bad, seen = [], 0
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(dirpath, f)
                seen += 1
                for line, mod in _imports(p):
                    if mod.split(".")[0] in FORBIDDEN:
                        bad.append(f"{os.path.relpath(p, root)}:{line} imports {mod}")
    assert seen >= 6
    assert not bad, bad


def test_scanner_catches_a_forbidden_import(tmp_path):
    """The scan above can fail: it sees plain, from- and dynamic imports."""
    p = tmp_path / "x.py"
    p.write_text("import os\nfrom eemu_ext.eefloat import hw_add\nimport harness.runners.bulk.run as h\n"
                 "__import__('eemu_ext')\n")
    assert [m for _, m in _imports(str(p))] == ["os", "eemu_ext.eefloat", "harness.runners.bulk.run", "eemu_ext"]


def test_no_node_id_selected_by_the_harness_note_filter():
    """The harness's note checks are selected with `pytest -k notes`: no test of this folder may
    carry that substring in its file, class or function name (the naming rule)."""
    import pkgutil
    import tests.reference as pkg
    here = os.path.dirname(pkg.__file__)
    for info in pkgutil.iter_modules([here]):
        assert "notes" not in info.name.lower(), info.name
        src = open(os.path.join(here, info.name + ".py"), encoding="utf-8").read()
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith(("test", "Test")):
                assert "notes" not in node.name.lower(), f"{info.name}.{node.name}"
