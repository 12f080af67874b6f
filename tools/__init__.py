"""Developer tools run from a source checkout (``make screenshots``, ``keepsake bench ui``): not
part of the installed package (pyproject packages ``assistant`` and ``ui`` only)."""
