"""A shim for ``scrapyd-deploy``, which builds its egg with ``python setup.py bdist_egg``.

Everything is declared in pyproject.toml, including the ``scrapy`` entry point Scrapyd
reads the settings module from. Without this file scrapyd-deploy writes a setup.py of its
own into the project, whose entry point pyproject.toml would silently override.
"""

from setuptools import setup

setup()
