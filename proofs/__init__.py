"""The seed's claims as checkable steps with verdicts (see proofs/README in the project README)."""
