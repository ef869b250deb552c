"""Everything that touches the world: camera, GPIO, clocks, the state directory, the main loop and the
``companion`` command line. The only package that wires the others together."""

import os

# numpy's linear algebra (OpenBLAS) runs even a 3x3 inverse of a homography on a pool of threads, and waking the
# pool costs far more than the sum: np.linalg.inv of a 3x3 took 0.18 ms pinned to one core and 0.83 ms unpinned on
# the 2-core dev container, 0.009 ms with one thread. The readers invert and solve small matrices every frame and
# do no large linear algebra; ONNX Runtime and OpenCV keep their own threads. Set before numpy is first imported
# (the ``companion`` command imports this package first); a value the caller set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
