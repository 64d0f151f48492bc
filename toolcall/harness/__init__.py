"""The conformance harness: profiles, cassettes, replay, fingerprints, checks and reports.

It is a layer on top of the library and the only part that knows of YAML, vcrpy or pytest; the
library itself never imports from here.
"""
