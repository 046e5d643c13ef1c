"""The one exception type the library raises for bad input.

`InputError` is a `ValueError` whose message is one line that names the
offending value and the rule it breaks; the CLI prints it as is and exits 2.
"""


#: Longest message: a longer one (a huge value shown in full) keeps its start and end.
MAX_MESSAGE_CHARS = 500


class InputError(ValueError):
    """Bad user input: the message names the value and the rule.  It is one line of at most
    `MAX_MESSAGE_CHARS` characters, whatever the message it is given (line breaks are escaped, and the
    middle of a longer message is replaced by its length)."""

    def __init__(self, message: object = "", *args: object) -> None:
        text = str(message).replace("\r", "\\r").replace("\n", "\\n")
        if len(text) > MAX_MESSAGE_CHARS:
            text = f"{text[:300]}…[{len(text)} characters]…{text[-150:]}"
        super().__init__(text, *args)
