"""The SVT family (issues 10 and 11)."""
