"""Computer vision: pure functions on numpy BGR images plus classes that load ONNX models once.

Each stage is a module that can run alone on an image file and draw what it saw."""
