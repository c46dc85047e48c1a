"""The compiled core of `turs`: plain arrays in, plain arrays out.

Every kernel here has a plain-numpy twin or an independent oracle in ``tests/``.
"""
