"""Signal and privacy metrics (SPEC sections 5 and 6), one result object per metric."""
