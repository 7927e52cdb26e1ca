"""Thin adapters to outside tools (Ray); the library never needs them to run one thing."""
