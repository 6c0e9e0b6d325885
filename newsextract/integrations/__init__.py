"""newsextract inside other tools' pipelines (each needs its extra: ``pip install
'newsextract[datatrove]'`` for :mod:`newsextract.integrations.datatrove`)."""
