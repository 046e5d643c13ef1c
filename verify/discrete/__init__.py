"""Sparse Vector variants with noise on the integers: exact output probabilities, ties included.

With discrete Laplace or discrete Gaussian noise a tie ``q_i + X_i = t + Z``
has positive probability, so the comparison (``>=`` or ``>``) is part of the
mechanism.  Modules:

* `rules`: which variants are discrete, and the integer rules they obey;
* `plan`: an outcome as segments of tail factors in the threshold value z;
* `closed_form`: discrete Laplace, the probability as a finite sum of geometric
  series (sympy exact, mpmath to any digits, arb rigorous);
* `direct`: the same sum over z term by term with a proven tail (discrete
  Gaussian's main path; the 50-digit oracle of the closed form);
* `fast`: float64 with an error estimate; `halting`: all k+1 AboveThreshold outcomes,
  vectorised over query vectors;
* `probability`: the front door; `sampler`: a seeded simulation;
* `bound`, `search`, `verdict`: proven bound, exhaustive and structured integer search,
  verdict; `delta`: exact δ(ε') of one pair; `table`: the discrete rows of the family table;
* `ties`: ``>=`` vs ``>`` (no variant's privacy depends on it);
* `presets`: named discrete variants with their sources.
"""
