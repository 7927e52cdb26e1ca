"""Thin adapters to outside tools (Hugging Face ``datasets``, inspect_ai): they translate, never re-implement;
the library never needs them to run one thing. (Ray, which only ``pfc sweep`` uses, is ``pfc.sweep.ray_tasks``.)"""
