"""Thin adapters to outside tools (Ray, Hugging Face ``datasets``, inspect_ai): they translate, never re-implement;
the library never needs them to run one thing."""
