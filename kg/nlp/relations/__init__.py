"""Relations between a paper's entities: the pairs, what the classifier scores them by, and
the spaCy component that writes them."""
