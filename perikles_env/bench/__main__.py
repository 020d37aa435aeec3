"""``python -m perikles_env.bench``: the same as ``perikles-bench``."""

import sys

from .cli import main

sys.exit(main())
