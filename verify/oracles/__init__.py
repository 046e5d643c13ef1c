"""The independent oracles: outcome probabilities rebuilt from the noise laws alone.

`seed` (the seed's AboveThreshold, integrated by mpmath), `family` (any variant, its factors
written out per release rule) and `rule` (the Gauss-Legendre rule they share).  They re-check
the engine, so they import nothing of `verify.engine` nor a front door
(tests/test_architecture_layers.py says so).
"""
