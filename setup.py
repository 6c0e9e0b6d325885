"""The compiled page model, and a shim for ``scrapyd-deploy``.

Everything else is declared in pyproject.toml. The extension is Cython over lxml's public C
API, compiled against the headers lxml ships (``lxml.get_include()``): nothing of libxml2 is
linked, the tree is lxml's own. ``scrapyd-deploy`` builds its egg with ``python setup.py
bdist_egg``; without this file it writes a setup.py of its own, whose entry point
pyproject.toml would silently override.
"""

import os
import textwrap

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command import bdist_egg

# NEWSEXTRACT_SANITIZE=address builds the extension under AddressSanitizer (benchmarks/fuzz.py).
SANITIZE = os.environ.get("NEWSEXTRACT_SANITIZE", "")
FLAGS = [f"-fsanitize={SANITIZE}", "-fno-omit-frame-pointer", "-g", "-O1"] if SANITIZE else []

#: The compiled modules, each in the stage package it serves.
MODULES = (
    "newsextract/extraction/pagemodel/_walk",
    "newsextract/extraction/pagemodel/_text",
    "newsextract/extraction/evidence/_trees",
    "newsextract/extraction/evidence/_names",
    "newsextract/extraction/evidence/_layout",
)
EXTENSIONS = [
    Extension(
        path.replace("/", "."),
        [f"{path}.pyx"],
        include_dirs=lxml.get_include(),
        extra_compile_args=FLAGS,
        extra_link_args=FLAGS,
    )
    for path in MODULES
]

# The loader setuptools writes beside a compiled module in an egg (Scrapyd runs eggs) asks
# importlib.resources for the module's own name as a package, and leaves its stub in
# sys.modules: it fails at import. This one reads the package and puts the module in place.
_EGG_STUB = textwrap.dedent(
    """
    def __bootstrap__():
        global __bootstrap__, __loader__, __file__
        import sys, importlib.resources as irs, importlib.util
        with irs.as_file(irs.files(__package__).joinpath(%r)) as __file__:
            __loader__ = None; del __bootstrap__, __loader__
            spec = importlib.util.spec_from_file_location(__name__, __file__)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[__name__] = module
    __bootstrap__()
    """
).lstrip()


def write_egg_stub(resource: str, pyfile: str) -> None:
    with open(pyfile, "w", encoding="utf-8") as stub:
        stub.write(_EGG_STUB % resource)


bdist_egg.write_stub = write_egg_stub

setup(ext_modules=cythonize(EXTENSIONS, language_level=3, quiet=True))
