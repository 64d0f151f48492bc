"""Tests of the project as a whole: the Makefile, packaging, the import layers, the checkout guard,
the bench."""
