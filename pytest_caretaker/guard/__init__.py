"""Refuse a candidate before anything runs: outside the scope, or weakening a test."""
