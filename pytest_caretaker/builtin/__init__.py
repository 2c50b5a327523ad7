"""Repairing without a model: small edits where the failing cases ran, verified fast."""
