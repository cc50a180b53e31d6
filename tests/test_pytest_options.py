"""The README's real-disc pytest command works as printed, with the files anywhere.

pytest takes its rootdir from the path-like words of its command line before it reads any
conftest.py; the eediff options come from the eediff_pytest plugin (an entry point), so
`--image /elsewhere/SLUS_202.67` is known even then.
"""
import os
import subprocess
import sys

from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, ROOT

PY = sys.executable


def pytest_run(*args, env=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    full_env.update(env or {})
    return subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=full_env)


def disc_files(tmp_path, image=DEFAULT_IMAGE):
    """A disc's two files in a directory outside the checkout (links, to keep the test cheap)."""
    assert not str(tmp_path).startswith(ROOT)
    (tmp_path / "SLUS_202.67").symlink_to(image)
    (tmp_path / "DATA.BIN").symlink_to(DEFAULT_DATA)
    return str(tmp_path / "SLUS_202.67"), str(tmp_path / "DATA.BIN")


def test_readme_command_with_files_outside_the_checkout_selects_the_note_checks(tmp_path):
    image, data = disc_files(tmp_path)
    r = pytest_run("--image", image, "--data", data, "-k", "notes", "--collect-only", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    ids = [l for l in r.stdout.splitlines() if "::" in l]
    assert ids and all("::test_notes" in l for l in ids), r.stdout


def test_the_image_given_with_a_space_reaches_the_differential_tests(tmp_path):
    """A file that is not an ELF, outside the checkout: the note checks report that very file."""
    bogus = tmp_path / "not_an_elf" / "SLUS_202.67"
    bogus.parent.mkdir()
    bogus.write_bytes(b"this is not an ELF\n" * 8)
    (tmp_path / "DATA.BIN").symlink_to(DEFAULT_DATA)
    r = pytest_run("--image", str(bogus), "--data", str(tmp_path / "DATA.BIN"), "-k", "notes", "-q", "-x")
    assert r.returncode != 0 and "unrecognized arguments" not in r.stderr, r.stdout + r.stderr
    assert str(bogus) in r.stdout + r.stderr


def test_eediff_image_and_eediff_data_stand_for_the_options(tmp_path):
    bogus = tmp_path / "SLUS_202.67"
    bogus.write_bytes(b"\x7fELF but cut short")
    r = pytest_run("-k", "notes", "-q", "-x", env={"EEDIFF_IMAGE": str(bogus), "EEDIFF_DATA": DEFAULT_DATA})
    assert r.returncode != 0 and str(bogus) in r.stdout + r.stderr, r.stdout + r.stderr


def test_a_non_numeric_eediff_seed_is_one_clear_line():
    r = pytest_run("-k", "notes", "--collect-only", "-q", env={"EEDIFF_SEED": "four"})
    assert r.returncode != 0 and "EEDIFF_SEED='four' is not a whole number" in r.stdout + r.stderr


def test_without_the_plugin_entry_point_the_command_fails(tmp_path):
    """The check above can go red: with autoloading off, the root conftest.py is never reached."""
    image, data = disc_files(tmp_path)
    r = pytest_run("--image", image, "--data", data, "-k", "notes", "--collect-only", "-q",
                   env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert r.returncode == 4 and "unrecognized arguments: --image" in r.stderr, r.stdout + r.stderr


def test_a_missing_image_is_one_usage_error_not_one_per_test(tmp_path):
    r = pytest_run("--image", str(tmp_path / "nowhere.elf"), "-k", "notes", "-q")
    assert r.returncode == 4, r.stdout + r.stderr
    assert f"--image {tmp_path / 'nowhere.elf'}: no such file" in r.stderr and " passed" not in r.stdout


def test_a_directory_as_data_is_named_as_one(tmp_path):
    r = pytest_run("--data", str(tmp_path), "-k", "notes", "-q")
    assert r.returncode == 4 and "not a regular file (a directory" in r.stderr, r.stdout + r.stderr


def test_under_the_nightly_profile_a_marker_takes_every_chunk_with_its_records():
    """`pytest -k notes --profile nightly` checks all 944 note chunks (corpus-stats.md),
    as the earlier harness did; --chunks N takes a seeded sample for a quick look."""
    every = pytest_run("tests/differential", "-k", "notes", "--profile", "nightly", "--collect-only", "-q")
    assert every.returncode == 0, every.stdout + every.stderr
    ids = [l for l in every.stdout.splitlines() if "::test_notes[" in l]
    assert len(ids) == 944, len(ids)
    some = pytest_run("tests/differential", "-k", "notes", "--profile", "nightly", "--chunks", "7",
                      "--collect-only", "-q")
    assert len([l for l in some.stdout.splitlines() if "::test_notes[" in l]) == 7
