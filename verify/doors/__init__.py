"""The two front doors: exact values (`verify.doors.exact`) and float64 (`verify.doors.fast`).

Each door holds an open, ordered list of engines that declare what they support
(`verify.doors.contract`: ``supports(mech)`` and a one-line ``refusal(mech)``); the door takes the
first engine that supports the mechanism, or refuses it in one `InputError` line naming it and
every engine's reason.  The older names (`verify.probabilities.mp_distribution`,
`verify.family.probability.mp_probability`, `verify.family.fast_api`, `verify.discrete.probability`)
are thin views over these doors.  docs/architecture.md, "The two front doors".
"""
