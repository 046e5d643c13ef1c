"""The peers' suites as one table: every SVT and RNM program of DP-Sniper, StatDP and CheckDP with
svt-verify's exact verdict beside what each peer published (docs/adaptive.md, "The peers' suites").

`programs` (the list, each program read from its source, with the model that expresses it or the
reason none does, and the published lower bounds) and `suite` (runs the distinct models once each
and renders the table).
"""
