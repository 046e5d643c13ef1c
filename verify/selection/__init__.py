"""Selection mechanisms beside the Sparse Vector family: Report Noisy Max (docs/selection.md).

`model` (the frozen `ReportNoisyMax`), `presets` (the peers' programs and OpenDP's map, with sources),
`probability` (exact, mpmath), `closed_forms` (Gumbel's softmax, the exponential family's polynomial),
`fast` (float64 with an error estimate), `bounds` (proven bounds), `search` (the structured worst-case
search) and `verdict` (private / not_private / undecided).
"""
