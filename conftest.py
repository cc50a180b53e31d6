"""Project-wide pytest set-up: the options are eediff_pytest's (a plugin, see its docstring).

Listed here too so the options exist when plugin autoloading is disabled
(PYTEST_DISABLE_PLUGIN_AUTOLOAD); pytest registers the module once either way.
"""
pytest_plugins = ["eediff_pytest"]
