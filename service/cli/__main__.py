"""``python -m service.cli``: the ``pref`` command."""

import sys

from service.cli import main

sys.exit(main())
