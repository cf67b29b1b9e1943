"""IR rewrites chosen by the cost model before planning (they change which ops exist, not how they group)."""
