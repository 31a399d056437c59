from sgtools.cli import main

raise SystemExit(main())
