"""The local site server the end-to-end tests start as a subprocess.

``python tests/site_server.py ROOT [--log FILE] [--lifetime SECONDS]`` binds 127.0.0.1 on a
free port and prints the port on stdout. The server itself ships in the package
(:mod:`newsextract.demo_server`) because the offline demo uses it too.
"""

from __future__ import annotations

import sys

from newsextract.demo_server import main

if __name__ == "__main__":
    sys.exit(main())
