"""The code's hygiene, as `make lint` checks it (pyproject.toml): no pyflakes error anywhere and no
unused argument in the packages (ruff), no dead code (vulture), and import-linter's contracts: the
packages' layers of harness/README.md, the harness's own layers (cli > runners > checks > driver >
compare) and no import circle between sibling modules. The tools come with the venv's lint extra
(make test installs it); a missing tool is an error here, never a skip."""
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)


def tool(name):
    path = os.path.join(BIN, name)
    if not os.path.isfile(path):
        pytest.fail(f"{name} is not in {BIN}: install the lint extra (make lint, or pip install -e '.[lint]')")
    return path


def run(*argv, cwd=ROOT):
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ruff_finds_no_pyflakes_error_and_no_unused_argument():
    r = run(tool("ruff"), "check", "--quiet", "--output-format", "concise", ".")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_vulture_finds_no_dead_code():
    r = run(tool("vulture"))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_the_import_contracts_hold():
    r = run(tool("lint-imports"), "--no-cache")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def contracts_tree(tmp_path, files):
    """A tree of our five packages (empty modules but `files`) under the project's contracts."""
    conf = tomllib.loads(open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read())["tool"]["importlinter"]
    for pkg in conf["root_packages"]:
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    for c in conf["contracts"]:                     # every layer a layers contract names, every
        named = [m.strip() for entry in c.get("layers", ()) for m in entry.split("|")]
        named += [m for m in c.get("source_modules", ()) + c.get("forbidden_modules", ()) if "." in m]
        for layer in named:                         # module a forbidden contract names below a package
            *pkgs, last = layer.split(".")
            if last == "__main__":
                (tmp_path.joinpath(*pkgs) / "__main__.py").write_text("")
                continue
            (tmp_path.joinpath(*pkgs, last)).mkdir(exist_ok=True)
            (tmp_path.joinpath(*pkgs, last) / "__init__.py").write_text("")
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    lines = ["[tool.importlinter]", f"root_packages = {conf['root_packages']!r}".replace("'", '"')]
    for c in conf["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{k} = {v!r}".replace("'", '"') for k, v in c.items()]
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    return subprocess.run([tool("lint-imports"), "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.parametrize("files, broken", [
    ({"reports/x.py": "from harness.runners import bulk\n"}, "reports render a run directory alone"),
    ({"reference/y.py": "import eemu_ext\n"}, "the reference is independent"),
    ({"harness/compare/z.py": "from harness.checks import w\n", "harness/checks/w.py": ""},
     "harness layers"),
    ({"harness/checks/w.py": "from harness.truth import check\n", "harness/truth/check.py": ""},
     "the checks import nothing of the truth files"),
    ({"corpus/a.py": "from corpus import b\n", "corpus/b.py": "from corpus import a\n"},
     "no import circle"),
    ({"eemu_ext/isa/row.py": "from eemu_ext.core import machine\n", "eemu_ext/core/machine.py": ""},
     "the machine in layers"),
    ({"harness/runners/cases/chunk.py": "from harness.runners.bulk import selection\n",
      "harness/runners/bulk/selection.py": ""},
     "the runs in layers"),
    ({"harness/runners/cases/chunk.py": "from harness.runners.probing import probe\n",
      "harness/runners/probing/probe.py": ""},
     "the runs in layers"),
])
def test_each_contract_goes_red_on_the_import_it_forbids(tmp_path, files, broken):
    r = contracts_tree(tmp_path, files)
    assert r.returncode != 0, r.stdout
    out = r.stdout[r.stdout.index("Broken contracts"):]
    assert broken in out, out


def test_the_contracts_hold_on_a_tree_without_forbidden_imports(tmp_path):
    r = contracts_tree(tmp_path, {"harness/runners/ok.py": "from harness.checks import c\n", "harness/checks/c.py": ""})
    assert r.returncode == 0, r.stdout


def test_ruff_goes_red_on_an_unused_import_and_argument(tmp_path):
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path / "pyproject.toml")
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "m.py").write_text("import os\n\n\ndef f(a, b):\n    return a\n")
    r = run(tool("ruff"), "check", "--output-format", "concise", ".", cwd=tmp_path)
    assert r.returncode == 1 and "F401" in r.stdout and "ARG001" in r.stdout, r.stdout
