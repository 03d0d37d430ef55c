"""Data: manifests, pre-flight checks, NIfTI I/O, the embedded synthetic dataset, patch pipelines."""
