"""The one exception type for problems with the user's data.

Kept in its own module so that ``manifest``, ``io`` and ``checks`` can all raise
it without importing each other.
"""


class DataError(ValueError):
    """A problem with the dataset on disk: one clear message naming the file/setting and what to do.

    Subclasses ``ValueError`` so callers that already catch bad-input errors keep working.
    """
