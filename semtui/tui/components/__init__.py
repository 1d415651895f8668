"""One module per pane (Harlequin's layout): lists, detail, distance table, summary, forms."""
