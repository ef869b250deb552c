"""Everything that touches the world: camera, GPIO, clocks, the state directory, the main loop and the
``companion`` command line. The only package that wires the others together."""
