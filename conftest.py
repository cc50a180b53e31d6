"""Project-wide pytest options: which executable, which archive, how much, which float model.

The same options drive every differential test, so a reviewer can point the suite at the
real SLUS_202.67 and DATA.BIN (or a disc image) without touching any test.
"""
import os

import pytest

ROOT = os.path.dirname(os.path.abspath(__file__))
DEFAULT_IMAGE = os.path.join(ROOT, "standin", "standin.elf")
DEFAULT_SYNTH_DIR = os.path.join(ROOT, "build", "synth")
DEFAULT_DATA = os.path.join(DEFAULT_SYNTH_DIR, "DATA.BIN")


def pytest_addoption(parser):
    g = parser.getgroup("eediff")
    g.addoption("--image", default=os.environ.get("EEDIFF_IMAGE", DEFAULT_IMAGE),
                help="R5900 ELF to drive (SLUS_202.67 or the stand-in; default the stand-in)")
    g.addoption("--data", default=os.environ.get("EEDIFF_DATA", DEFAULT_DATA),
                help="DATA.BIN to read (default: the synthetic corpus, generated on demand)")
    g.addoption("--disc", default=os.environ.get("EEDIFF_DISC"),
                help="ISO 9660 image holding DATA/DATA.BIN and the executable")
    g.addoption("--chunks", type=int, default=int(os.environ.get("EEDIFF_CHUNKS", "0")),
                help="differential tests: a seeded sample of this many chunks (0 = profile default)")
    g.addoption("--seed", type=int, default=int(os.environ.get("EEDIFF_SEED", "4")),
                help="seed for every random choice (with the chunk identity)")
    g.addoption("--profile", choices=("quick", "nightly"),
                default=os.environ.get("EEDIFF_PROFILE", "quick"),
                help="how thoroughly each chunk is checked")
    g.addoption("--float-model", choices=("hw", "trunc"),
                default=os.environ.get("EEDIFF_FLOAT", "hw"),
                help="EE float model used by both the machine and the reference")
    g.addoption("--engine", choices=("native", "python", "lockstep"), default=None,
                help="the machine's engine for the differential tests (default: $EEMU_ENGINE, else "
                     "native where a C compiler exists); the machine tests run every engine")
    g.addoption("--allow-bad-members", action="store_true", default=False,
                help="differential tests: run on an archive with corrupt or unreadable members")
    g.addoption("--slow", action="store_true", default=False,
                help="also run tests marked slow")


def pytest_configure(config):
    engine = config.getoption("--engine")
    if engine:
        os.environ["EEMU_ENGINE"] = engine


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("slow") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
