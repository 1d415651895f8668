"""Screens: the main view, the group view (distance table full size), comparison, modals."""
