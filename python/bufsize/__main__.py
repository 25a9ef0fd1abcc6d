import sys

from bufsize.cli import main

sys.exit(main())
