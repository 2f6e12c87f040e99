"""Shared helpers for the test suite: real javac/java, real Debian packages."""
