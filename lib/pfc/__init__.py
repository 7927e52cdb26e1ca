"""pfc: personalized function calling — one schema, safe parsers and one scorer.

Benchmarks: TRACEBench, PTBench and ToolSpectrum (papers in ../shared/papers).

    >>> from pfc.eval.parsing import parse
    >>> parse("Shop:[buy(item='tea', count=2)]").calls[0].arguments
    {'item': 'tea', 'count': 2}
"""
__version__ = "0.1.0"
