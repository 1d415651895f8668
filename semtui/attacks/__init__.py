"""Attacks on anonymised transaction data.

``eliminate`` holds the eliminators of the set-generalisation attack (MDA, TBA, WBA, GBA,
RBA and the random baseline RA) that work on one distance table; the dataset-level attacks
build distance tables from a dataset and call them.
"""
