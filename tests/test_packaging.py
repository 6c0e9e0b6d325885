"""The project builds from its own files into an sdist and a wheel that work elsewhere.

The sdist carries the compiled page model as Cython source (the .pyx and its .pyi stubs, never
the generated .c or a built .so), so that any machine with a C compiler rebuilds it; the wheel
installs into a fresh virtual environment without Cython and extracts a page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Building (with its isolated build environment) and installing the dependencies.
STEP_TIMEOUT = 900
PAGE = """<html><head><title>Bridge</title></head><body><nav>Home | News</nav><article>
<h1>The bridge will be built</h1>
<p>The council met on Tuesday to discuss the new bridge across the river, which has been
delayed for three years by disputes over its cost.</p>
<p>Residents said they were pleased that work would finally begin next spring, after a
long consultation that drew more than two thousand replies.</p>
</article><footer>Copyright</footer></body></html>"""


def clean_env() -> dict[str, str]:
    """The environment without what would make a subprocess import this checkout."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}


def run(command: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
    )


def copy_tracked_files(target: Path) -> None:
    """The files git tracks, as they are in the work tree: no build output can leak in."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    for name in listed.decode().split("\0"):
        source = REPO_ROOT / name
        if name and source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def member_names(archive: Path) -> list[str]:
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            return wheel.namelist()
    with tarfile.open(archive) as sdist:
        return sdist.getnames()


def assert_ships_source_not_build_output(sdist: Path) -> None:
    names = member_names(sdist)
    for module in ("pagemodel/_walk", "pagemodel/_text", "evidence/_trees", "evidence/_names"):
        for suffix in (".pyx", ".pyi"):
            assert any(name.endswith(f"{module}{suffix}") for name in names), module + suffix
    assert not [name for name in names if name.endswith((".c", ".so"))]


@pytest.mark.slow
def test_sdist_and_wheel_build_install_without_cython_and_extract(tmp_path: Path) -> None:
    source, dist = tmp_path / "source", tmp_path / "dist"
    copy_tracked_files(source)
    built = run([sys.executable, "-m", "build", "--outdir", dist, source], tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")  # built from the sdist: the sdist rebuilds
    assert_ships_source_not_build_output(sdist)
    assert any(name.endswith(".so") for name in member_names(wheel))

    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", venv], tmp_path).returncode == 0
    installed = run([venv / "bin" / "pip", "install", "--quiet", wheel], tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    no_cython = run([venv / "bin" / "python", "-c", "import Cython"], tmp_path)
    assert "ModuleNotFoundError" in no_cython.stderr

    page = tmp_path / "page.html"
    page.write_text(PAGE, encoding="utf-8")
    extracted = run([venv / "bin" / "newsextract", "extract", page], tmp_path)
    assert extracted.returncode == 0, extracted.stderr
    assert "drew more than two thousand replies" in extracted.stdout
    where = run(
        [venv / "bin" / "python", "-c", "import newsextract; print(newsextract.__file__)"], tmp_path
    )
    assert where.stdout.startswith(str(venv))
