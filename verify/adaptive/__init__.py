"""Adaptive Sparse Vector with Gap (Ding, Wang, Zhang and Kifer, PVLDB 2019; docs/adaptive.md).

`model` (the frozen `AdaptiveSVT` and its outcomes), `presets` (CheckDP's two programs and the paper's
parameters, with sources), `probability` (exact, mpmath), `fast` (float64 with an error estimate),
`sampler` (seeded runs), `bounds` (the randomness-alignment bound), `search` (the structured
worst-case search) and `verdict` (private / not_private / undecided).
"""
