"""Text from runs (names, models, paths) made inert in Markdown: one table cell, one line, no HTML.

A run's name comes from its config (``--model``, a sweep spec), i.e. from whoever made the run. In ``report.md`` it
becomes a table cell that a notebook shows with ``Markdown`` and the pipeline converts to HTML: :func:`cell` turns ``& <
>`` into entities (no tag survives any Markdown renderer), ``|`` into ``\\|`` (no extra column) and line breaks into
spaces (no new block). Pure; it does not render anything.

    >>> cell("m<script>alert(1)</script>\\n\\n| x")
    'm&lt;script&gt;alert(1)&lt;/script&gt;  \\\\| x'
"""
from __future__ import annotations

import re


def cell(value) -> str:
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"[\r\n\x0b\x0c\u2028\u2029]", " ", text).replace("|", "\\|")
