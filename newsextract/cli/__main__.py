"""``python -m newsextract.cli``: the ``newsextract`` command."""

import sys

from newsextract.cli import main

sys.exit(main())
