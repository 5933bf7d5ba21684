"""The metrics of a time series table (SPEC 13): how its avatars keep each variable's curves point by point and in
their functional principal components, the timing of the measures, and each person's level, trend and changes;
each read against a real sample of other persons, as the Hellinger Mean is (seed 002); each a
``compute(SeriesContext)`` listed in the registry's ``SERIES_METRICS``."""
