from mesa.cli import main

raise SystemExit(main())
