"""Run mpiwatch-gen as ``python3 -m mpiwatch_gen``."""

import sys

from .cli import main

sys.exit(main())
