"""The compiled page model, and a shim for ``scrapyd-deploy``.

Everything else is declared in pyproject.toml. The extension is Cython over lxml's public C
API, compiled against the headers lxml ships (``lxml.get_include()``): nothing of libxml2 is
linked, the tree is lxml's own. ``scrapyd-deploy`` builds its egg with ``python setup.py
bdist_egg``; without this file it writes a setup.py of its own, whose entry point
pyproject.toml would silently override.
"""

import os

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

# NEWSEXTRACT_SANITIZE=address builds the extension under AddressSanitizer (benchmarks/fuzz.py).
SANITIZE = os.environ.get("NEWSEXTRACT_SANITIZE", "")
FLAGS = [f"-fsanitize={SANITIZE}", "-fno-omit-frame-pointer", "-g", "-O1"] if SANITIZE else []

#: The compiled modules, each in the stage package it serves.
MODULES = (
    "newsextract/extraction/pagemodel/_walk",
    "newsextract/extraction/pagemodel/_text",
    "newsextract/extraction/evidence/_trees",
    "newsextract/extraction/evidence/_names",
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

setup(ext_modules=cythonize(EXTENSIONS, language_level=3, quiet=True))
