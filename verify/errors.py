"""The one exception type the library raises for bad input.

`InputError` is a `ValueError` whose message is one line that names the
offending value and the rule it breaks; the CLI prints it as is and exits 2.
"""


class InputError(ValueError):
    """Bad user input: the message names the value and the rule."""
