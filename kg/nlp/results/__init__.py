"""Reported results: the numbers that may be scores, what the sentence around each says
(method, data set, metric, setting), and the spaCy component."""
