"""Whole-program rewriting: jars in, jars out, with the embedded Java runtime."""
