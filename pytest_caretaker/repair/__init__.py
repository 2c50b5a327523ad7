"""Repair one problem: the chain of repairers, the check every candidate passes, clusters of
failures with one root cause, and remembered fixes."""
